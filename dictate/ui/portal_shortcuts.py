"""The global shortcut through the XDG GlobalShortcuts portal (Wayland: KDE Plasma, GNOME 48+,
Hyprland), over D-Bus with jeepney.

The flow the portal specifies: ``CreateSession`` and ``BindShortcuts`` each answer with a
request object whose ``Response`` signal carries the result; after that the portal sends
``Activated`` when the shortcut is pressed and ``Deactivated`` when it is released (which makes
push-to-talk possible). The desktop shows the user the shortcut and may let them change the
key; the app only says which key it would prefer.

Tested against a stand-in portal service on a private session bus
(tests/ui/test_portal_shortcuts.py): no desktop here runs xdg-desktop-portal with a
GlobalShortcuts backend.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger("dictate.ui")

PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"
REQUEST = "org.freedesktop.portal.Request"
SHORTCUT_ID = "toggle-dictation"
_TIMEOUT_S = 30.0
"""How long to wait for the desktop's answer (it may show the user a dialog first)."""

_TRIGGER_NAMES = {"ctrl": "CTRL", "control": "CTRL", "alt": "ALT", "shift": "SHIFT",
                  "meta": "LOGO", "super": "LOGO"}  # fmt: skip


class PortalError(Exception):
    """No portal, or it refused; the message says which."""


def portal_trigger(mods: list[str], key: str) -> str:
    """The shortcut in the XDG shortcuts notation the portal takes: ``CTRL+ALT+d``."""
    names = [_TRIGGER_NAMES[m] for m in mods]
    return "+".join([*names, key.lower() if len(key) == 1 else key])


class PortalShortcut:
    """One shortcut bound through the portal; calls ``on_press``/``on_release`` from its own
    thread (the caller queues them to the GUI thread).

    Raises:
        PortalError: No session bus, no GlobalShortcuts portal, or the desktop refused.
    """

    def __init__(
        self,
        trigger: str,
        description: str,
        on_press: Callable[[], None],
        on_release: Callable[[], None],
    ) -> None:
        try:
            from jeepney.io.blocking import open_dbus_connection
        except ImportError:
            raise PortalError("the jeepney package is missing (pip install jeepney)") from None
        try:
            self._conn: Any = open_dbus_connection(bus="SESSION")
        except Exception as exc:  # no DBUS_SESSION_BUS_ADDRESS, or the bus is gone
            raise PortalError(f"no D-Bus session bus ({exc})") from None
        self._on_press, self._on_release = on_press, on_release
        self._stop = threading.Event()
        try:
            self._check_portal()
            self.session = self._create_session()
            self.bound = self._bind(trigger, description)
        except PortalError:
            self._conn.close()
            raise
        self._filters = self._listen()  # before the thread: no press is missed
        self._thread = threading.Thread(target=self._loop, name="dictate-portal", daemon=True)
        self._thread.start()
        log.info("global shortcut bound through the portal: %s", self.bound or trigger)

    # -- the calls -----------------------------------------------------------------------------

    def _address(self) -> Any:
        from jeepney import DBusAddress

        return DBusAddress(PORTAL_PATH, bus_name=PORTAL, interface=SHORTCUTS)

    def _check_portal(self) -> None:
        from jeepney import DBusErrorResponse, Properties
        from jeepney.wrappers import unwrap_msg

        try:
            unwrap_msg(
                self._conn.send_and_get_reply(Properties(self._address()).get("version"), timeout=5)
            )
        except DBusErrorResponse as exc:
            raise PortalError(f"the desktop has no GlobalShortcuts portal ({exc.name})") from None
        except TimeoutError:
            raise PortalError("no desktop portal answered") from None

    def _request(self, method: str, signature: str, body: tuple[Any, ...]) -> dict[str, Any]:
        """Call a portal method whose answer comes as a Request's Response; its results."""
        from jeepney import DBusErrorResponse, MatchRule, message_bus, new_method_call
        from jeepney.wrappers import unwrap_msg

        token = "dictate_" + secrets.token_hex(6)
        sender = self._conn.unique_name.lstrip(":").replace(".", "_")
        path = f"{PORTAL_PATH}/request/{sender}/{token}"
        rule = MatchRule(type="signal", interface=REQUEST, member="Response", path=path)
        self._conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=5)
        options = body[-1]
        options["handle_token"] = ("s", token)
        with self._conn.filter(rule) as queue:
            try:
                unwrap_msg(
                    self._conn.send_and_get_reply(
                        new_method_call(self._address(), method, signature, body), timeout=5
                    )
                )
            except DBusErrorResponse as exc:
                raise PortalError(f"the portal refused {method} ({exc.name})") from None
            try:
                answer = self._conn.recv_until_filtered(queue, timeout=_TIMEOUT_S)
            except TimeoutError:
                raise PortalError(f"the desktop did not answer {method}") from None
        response, results = answer.body
        if response != 0:
            what = "the user cancelled it" if response == 1 else "the desktop refused it"
            raise PortalError(f"{method}: {what}")
        return {key: value[1] for key, value in results.items()}

    def _create_session(self) -> str:
        results = self._request(
            "CreateSession", "a{sv}", ({"session_handle_token": ("s", "dictate")},)
        )
        session = results.get("session_handle")
        if not session:
            raise PortalError("the portal gave no session")
        return str(session)

    def _bind(self, trigger: str, description: str) -> str:
        shortcut = (
            SHORTCUT_ID,
            {"description": ("s", description), "preferred_trigger": ("s", trigger)},
        )
        results = self._request(
            "BindShortcuts", "oa(sa{sv})sa{sv}", (self.session, [shortcut], "", {})
        )
        for found, props in results.get("shortcuts", []):
            if found == SHORTCUT_ID:
                described = props.get("trigger_description")
                return str(described[1]) if described else ""
        raise PortalError("the desktop did not bind the shortcut")

    # -- the signals ---------------------------------------------------------------------------

    def _listen(self) -> list[Any]:
        """Subscribe to Activated and Deactivated: a filter (its queue) for each."""
        from jeepney import MatchRule, message_bus

        filters = []
        for member in ("Activated", "Deactivated"):
            rule = MatchRule(type="signal", interface=SHORTCUTS, member=member, path=PORTAL_PATH)
            self._conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=5)
            filters.append(self._conn.filter(rule, bufsize=64))
        return filters

    def _loop(self) -> None:
        pressed, released = (f.queue for f in self._filters)
        try:
            while not self._stop.is_set():
                with contextlib.suppress(TimeoutError):
                    self._conn.recv_messages(timeout=0.2)
                for queue, call in ((pressed, self._on_press), (released, self._on_release)):
                    while queue:
                        message = queue.popleft()
                        session, shortcut = message.body[0], message.body[1]
                        if session == self.session and shortcut == SHORTCUT_ID:
                            call()
        except Exception:  # the bus went away: the shortcut is gone, the app goes on
            if not self._stop.is_set():
                log.warning("the portal's global shortcut stopped", exc_info=True)

    def close(self) -> None:
        """Unbind: close the session and the connection."""
        from jeepney import DBusAddress, new_method_call

        self._stop.set()
        self._thread.join(2)
        for handle in self._filters:
            handle.close()
        try:
            session = DBusAddress(
                self.session, bus_name=PORTAL, interface="org.freedesktop.portal.Session"
            )
            self._conn.send(new_method_call(session, "Close"))
        except Exception:
            log.debug("closing the portal session failed", exc_info=True)
        self._conn.close()
