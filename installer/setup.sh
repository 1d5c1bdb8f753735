#!/usr/bin/env bash
# Install dictate for the current user and start it.
#
#   bash installer/setup.sh [--no-system-packages] [--no-start] [--prefix DIR] [--gpu|--cpu]
#   bash installer/setup.sh --which-runtime [--gpu|--cpu]  (print the ONNX Runtime it would install)
#   bash installer/setup.sh --desktop-only --bin PATH      (desktop entry and icon only)
#   bash installer/setup.sh --start-only --bin PATH        (the PATH check and the start only)
#
# 1. System packages (Debian/Ubuntu, with sudo unless root): Python's venv module, PortAudio for
#    the microphone, the X11/Wayland libraries Qt needs, and xdotool and xclip for typing into
#    other applications on X11 (on Wayland install wtype, dotool or ydotool yourself).
# 2. A virtual environment in $PREFIX/venv (default ~/.local/share/dictate/app) with dictate
#    installed from this checkout, and ONNX Runtime: onnxruntime-gpu (with its CUDA provider,
#    about 270 MB more) where an NVIDIA GPU and its driver are present, else the CPU build;
#    --gpu or --cpu (or DICTATE_RUNTIME=gpu or cpu) decides instead.
# 3. Desktop integration: ~/.local/bin/dictate, a desktop entry and the icon.
# 4. A smoke test (dictate --self-test, offscreen), then the app starts in the background (the
#    terminal comes back); if ~/.local/bin is not on PATH, the line that puts it there is printed.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
prefix="${XDG_DATA_HOME:-$HOME/.local/share}/dictate/app"
system_packages=1
start=1
desktop_only=0
start_only=0
bin=""

runtime="${DICTATE_RUNTIME:-auto}"
which_runtime=0

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --no-system-packages) system_packages=0 ;;
        --no-start) start=0 ;;
        --prefix) prefix="$2"; shift ;;
        --desktop-only) desktop_only=1 ;;
        --start-only) start_only=1 ;;
        --bin) bin="$2"; shift ;;
        --gpu) runtime=gpu ;;
        --cpu) runtime=cpu ;;
        --which-runtime) which_runtime=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "setup.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$runtime" in
    auto|gpu|cpu) ;;
    *) echo "setup.sh: DICTATE_RUNTIME must be gpu, cpu or auto, not '$runtime'" >&2; exit 2 ;;
esac

# The ONNX Runtime build, "gpu" or "cpu" (the pyproject extra of that name), and why: an NVIDIA
# GPU with its driver (nvidia-smi lists a GPU, or the kernel driver is loaded) gets the GPU
# build; it still runs on the CPU wherever CUDA cannot be initialised (dictate --provider auto).
nvidia_gpu() {
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        echo "nvidia-smi lists an NVIDIA GPU"
    elif [ -r "${NVIDIA_VERSION_FILE:-/proc/driver/nvidia/version}" ]; then  # tests move it
        echo "the NVIDIA driver is loaded"
    else
        return 1
    fi
}

choose_runtime() {
    local why
    case "$runtime" in
        gpu) echo "gpu (asked for)" ;;
        cpu) echo "cpu (asked for)" ;;
        auto)
            if why="$(nvidia_gpu)"; then echo "gpu ($why)"; else echo "cpu (no NVIDIA GPU found)"; fi
            ;;
    esac
}

install_desktop_entry() {
    local exe="$1"
    local data="${XDG_DATA_HOME:-$HOME/.local/share}"
    mkdir -p "$data/applications" "$data/icons/hicolor/scalable/apps"
    cp "$here/assets/dictate.svg" "$data/icons/hicolor/scalable/apps/dictate.svg"
    sed "s|^Exec=dictate|Exec=$exe|" "$here/assets/dictate.desktop" > "$data/applications/dictate.desktop"
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database "$data/applications" >/dev/null 2>&1 || true
    fi
    echo "setup.sh: desktop entry $data/applications/dictate.desktop"
}

check_path_and_start() {
    local exe="$1"
    case ":$PATH:" in
        *":$HOME/.local/bin:"*) ;;
        *)
            echo "setup.sh: ~/.local/bin is not on your PATH in this shell; to run 'dictate' here, run:"
            echo "    export PATH=\"\$HOME/.local/bin:\$PATH\""
            echo "  (new login shells on Debian and Ubuntu add it by themselves once it exists)"
            ;;
    esac
    if [ "$start" = 1 ]; then
        if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
            echo "setup.sh: no display here; start dictate from your desktop's app menu"
        else
            # Detached: the terminal comes back, and closing it does not close the app.
            nohup setsid "$exe" >/dev/null 2>&1 < /dev/null &
            echo "setup.sh: dictate is starting"
        fi
    fi
}

if [ "$which_runtime" = 1 ]; then
    choose_runtime
    exit 0
fi

if [ "$start_only" = 1 ]; then
    if [ -z "$bin" ]; then echo "setup.sh: --start-only needs --bin PATH" >&2; exit 2; fi
    check_path_and_start "$bin"
    exit 0
fi

if [ "$desktop_only" = 1 ]; then
    if [ -z "$bin" ]; then echo "setup.sh: --desktop-only needs --bin PATH" >&2; exit 2; fi
    install_desktop_entry "$bin"
    exit 0
fi

if [ "$system_packages" = 1 ] && command -v apt-get >/dev/null 2>&1; then
    sudo=""
    # Qt's own libraries need GLib, libGL and (on Wayland) libwayland-cursor: a desktop has
    # them, a minimal install does not; nor a font, or one with emoji (shown as boxes without).
    packages=(python3-venv libportaudio2 libegl1 libgl1 libglib2.0-0 libwayland-cursor0
              libxkbcommon0 libxkbcommon-x11-0 libxcb-cursor0
              libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 libxcb-shape0
              libfontconfig1 libdbus-1-3 fonts-dejavu-core fonts-noto-color-emoji xdotool xclip)
    missing=()
    for pkg in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
            || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" != 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "setup.sh: these system packages are missing and sudo is not installed:" \
                 "${missing[*]}. Install them as root (apt-get install ...), then run" \
                 "bash installer/setup.sh --no-system-packages" >&2
            exit 2
        fi
        sudo="sudo"
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        echo "setup.sh: installing system packages: ${missing[*]}"
        $sudo apt-get update -q
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
    fi
elif [ "$system_packages" = 1 ]; then
    echo "setup.sh: no apt-get here; install PortAudio and Python's venv module yourself" >&2
fi

chosen="$(choose_runtime)"
extra="${chosen%% *}"
echo "setup.sh: installing dictate into $prefix/venv (a Python virtual environment; a few minutes)"
echo "setup.sh: ONNX Runtime: $chosen; --cpu or --gpu chooses the other"
python3 -m venv "$prefix/venv"
"$prefix/venv/bin/pip" install -q --upgrade pip
# A venv from an earlier install may hold the other build: the two share the module's files.
other=$([ "$extra" = gpu ] && echo onnxruntime || echo onnxruntime-gpu)
if "$prefix/venv/bin/pip" show -q "$other" >/dev/null 2>&1; then
    "$prefix/venv/bin/pip" uninstall -q -y "$other"
fi
# (voices: a speech voice for the vocabulary's harvest, docs/vocabulary.md)
"$prefix/venv/bin/pip" install -q "$here[$extra,voices]"
# faster-whisper (the second pass) requires the CPU build, for a VAD dictate does not use: next
# to onnxruntime-gpu it would overwrite the GPU build's files. Keep the GPU build alone.
gpu_build="$("$prefix/venv/bin/pip" show onnxruntime-gpu 2>/dev/null | sed -n 's/^Version: //p' || true)"
if [ -n "$gpu_build" ] && "$prefix/venv/bin/pip" show -q onnxruntime >/dev/null 2>&1; then
    "$prefix/venv/bin/pip" uninstall -q -y onnxruntime
    "$prefix/venv/bin/pip" install -q --force-reinstall --no-deps "onnxruntime-gpu==$gpu_build"
fi
mkdir -p "$HOME/.local/bin"
ln -sf "$prefix/venv/bin/dictate" "$HOME/.local/bin/dictate"
install_desktop_entry "$prefix/venv/bin/dictate"

echo "setup.sh: smoke test"
QT_QPA_PLATFORM=offscreen "$prefix/venv/bin/dictate" --self-test

data="${XDG_DATA_HOME:-$HOME/.local/share}"
echo "setup.sh: installed in $prefix; run 'dictate' (in ~/.local/bin) or find dictate in the app menu"
echo "setup.sh: to remove it: rm -r '$prefix' ~/.local/bin/dictate '$data/applications/dictate.desktop' '$data/icons/hicolor/scalable/apps/dictate.svg'"
echo "  (speech models and the autosave journal are in $data/dictate; remove that folder too to forget them)"
check_path_and_start "$prefix/venv/bin/dictate"
