"""A stand-in for xdg-desktop-portal's GlobalShortcuts interface, on a private session bus.

No desktop here runs the real portal with a GlobalShortcuts backend (KDE, GNOME 48+, Hyprland
have one), so tests/ui/test_portal_shortcuts.py talks to this: it answers the calls the way the
portal specification says (a Request object per call, its Response signal with the results)
and sends Activated / Deactivated when told to on its standard input ("press", "release").

    python tests/fake_portal.py [ok|refuse|absent]
"""

from __future__ import annotations

import sys
import threading

from jeepney import (
    DBusAddress,
    HeaderFields,
    MessageType,
    message_bus,
    new_error,
    new_method_return,
    new_signal,
)
from jeepney.io.blocking import open_dbus_connection

PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    conn = open_dbus_connection(bus="SESSION")
    conn.send_and_get_reply(message_bus.RequestName("org.freedesktop.portal.Desktop"))
    lock = threading.Lock()
    bound: dict[str, str] = {}

    def send(message: object) -> None:
        with lock:
            conn.send(message)

    def commands() -> None:
        for line in sys.stdin:
            what = line.strip()
            if what in ("press", "release") and bound:
                member = "Activated" if what == "press" else "Deactivated"
                emitter = DBusAddress(PORTAL_PATH, interface=SHORTCUTS)
                for session, shortcut in bound.items():
                    send(new_signal(emitter, member, "osta{sv}", (session, shortcut, 1, {})))
                print(f"sent {member}", flush=True)
            elif what == "quit":
                break
        conn.close()

    threading.Thread(target=commands, daemon=True).start()
    print("ready", flush=True)
    while True:
        try:
            msg = conn.receive()
        except Exception:
            return
        if msg.header.message_type != MessageType.method_call:
            continue
        fields = msg.header.fields
        member, interface = fields.get(HeaderFields.member), fields.get(HeaderFields.interface)
        sender = fields.get(HeaderFields.sender, ":0.0")
        if interface == "org.freedesktop.DBus.Properties":
            if mode == "absent":
                send(new_error(msg, "org.freedesktop.DBus.Error.UnknownInterface", "s",
                               ("No such interface",)))  # fmt: skip
            else:
                send(new_method_return(msg, "v", (("u", 1),)))
            continue
        if interface == "org.freedesktop.portal.Session" and member == "Close":
            bound.clear()
            print("closed", flush=True)
            continue
        if interface != SHORTCUTS:
            send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", ("?",)))
            continue
        options = msg.body[-1]
        token = options["handle_token"][1]
        request = f"{PORTAL_PATH}/request/{sender.lstrip(':').replace('.', '_')}/{token}"
        send(new_method_return(msg, "o", (request,)))
        if member == "CreateSession":
            session = f"{PORTAL_PATH}/session/{sender.lstrip(':').replace('.', '_')}/dictate"
            results: dict[str, tuple[str, object]] = {"session_handle": ("s", session)}
            code = 0
        else:  # BindShortcuts
            session, shortcuts = msg.body[0], msg.body[1]
            code = 2 if mode == "refuse" else 0
            given = []
            for shortcut, props in shortcuts:
                trigger = props["preferred_trigger"][1]
                print(f"bind {shortcut} {trigger}", flush=True)
                bound[session] = shortcut
                given.append((shortcut, {"trigger_description": ("s", trigger)}))
            results = {"shortcuts": ("a(sa{sv})", given)}
        response = DBusAddress(request, interface="org.freedesktop.portal.Request")
        send(new_signal(response, "Response", "ua{sv}", (code, results)))


if __name__ == "__main__":
    main()
