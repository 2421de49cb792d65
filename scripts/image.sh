#!/usr/bin/env bash
# Builds the opspec container image with buildah (no Docker engine needed), as `make image` runs it.
#
#   scripts/image.sh [IMAGE]      IMAGE defaults to localhost/opspec:latest; BASE_IMAGE may name a base
#
# The base is the public python:3.12-slim when it is here or can be pulled; otherwise a Debian bookworm
# base made offline with debootstrap and trimmed like -slim, kept under a local tag so it is made once.
# The app image is tagged with a hash of what goes into it, and rebuilt only when that changes.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${1:-localhost/opspec:latest}
[[ ${IMAGE##*/} == *:* ]] || IMAGE="$IMAGE:latest"
PUBLIC_BASE=docker.io/library/python:3.12-slim
LOCAL_BASE=localhost/opspec-base:bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
TOOLS=(buildah podman runc iptables debootstrap)

say() { printf '[image %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

install_tools() {
    local missing=()
    for tool in "${TOOLS[@]}"; do
        PATH="$PATH:/usr/sbin:/sbin" command -v "$tool" >/dev/null || missing+=("$tool")
    done
    [[ ${#missing[@]} -eq 0 ]] && return
    if [[ $(id -u) -ne 0 ]]; then
        say "missing ${missing[*]}; install them (Debian: apt-get install ${TOOLS[*]}) or run as root"
        exit 1
    fi
    say "installing ${missing[*]} with apt-get (about 1 min)"
    apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "${TOOLS[@]}" >/dev/null
}

# A Debian bookworm root file system with python3, trimmed as the -slim images are: no docs, man
# pages, locales or byte code, and `python` naming python3.
make_local_base() {
    local rootfs started=$SECONDS
    rootfs=$(mktemp -d /var/tmp/opspec-base.XXXXXX)
    say "making $LOCAL_BASE with debootstrap from $MIRROR (about 2 min)"
    debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
        bookworm "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1 || {
        tail -20 "$rootfs.log" >&2
        rm -rf "$rootfs"
        say "debootstrap failed (log above)"
        exit 1
    }
    rm -f "$rootfs.log"
    rm -rf "$rootfs"/usr/share/{doc,man,info,lintian,linda}/* "$rootfs"/usr/share/locale/* \
        "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
        "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log "$rootfs"/var/cache/debconf/*-old
    find "$rootfs" -xdev -depth \( -name '__pycache__' -o -name '*.pyc' \) -exec rm -rf {} +
    ln -sf python3 "$rootfs/usr/bin/python"
    tar -C "$rootfs" --numeric-owner -c . |
        podman import --quiet --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' - "$LOCAL_BASE" >/dev/null
    rm -rf "$rootfs"
    say "made $LOCAL_BASE in $((SECONDS - started)) s"
}

choose_base() {
    if [[ -n ${BASE_IMAGE:-} ]]; then
        podman image exists "$BASE_IMAGE" || timeout 120 podman pull -q "$BASE_IMAGE" >/dev/null
        echo "$BASE_IMAGE"
    elif podman image exists "$PUBLIC_BASE"; then
        echo "$PUBLIC_BASE"
    elif podman image exists "$LOCAL_BASE"; then
        say "base: $LOCAL_BASE (made earlier with debootstrap; podman rmi it to make it again)"
        echo "$LOCAL_BASE"
    elif timeout 120 podman pull -q "$PUBLIC_BASE" >/dev/null 2>&1; then
        echo "$PUBLIC_BASE"
    else
        say "cannot pull $PUBLIC_BASE (no registry reachable)"
        make_local_base
        echo "$LOCAL_BASE"
    fi
}

# What goes into the image: the files the build copies (as .dockerignore lets them through), the
# Dockerfile itself, and the base's id. Read from the tree, so a checkout's uncommitted edits count.
context_hash() {
    local base_id=$1
    {
        echo "$base_id"
        source_url
        find Dockerfile .dockerignore pyproject.toml README.md app -type f \
            ! -path '*/__pycache__/*' ! -name '*.pyc' -print0 | sort -z | xargs -0 sha256sum
    } | sha256sum | cut -c1-16
}

# The clone's origin when it is an https URL (credentials dropped), for the image's source label;
# else the project's repository as pyproject.toml's [project.urls] names it (the Dockerfile's default).
source_url() {
    local url rest authority
    url=$(git remote get-url origin 2>/dev/null || true)
    if [[ $url != https://* ]]; then
        sed -n 's/^Repository *= *"\(.*\)"/\1/p' pyproject.toml | head -1
        return 0
    fi
    rest=${url#https://}
    authority=${rest%%/*}
    echo "https://${authority##*@}${rest#"$authority"}"
}

main() {
    install_tools
    local base base_id hash built version source started=$SECONDS
    base=$(choose_base)
    base_id=$(podman image inspect --format '{{.Id}}' "$base")
    hash=$(context_hash "$base_id")
    built="${IMAGE%:*}:ctx-$hash"
    if podman image exists "$built"; then
        say "$IMAGE is up to date ($built: nothing it is built from has changed)"
        podman tag "$built" "$IMAGE"
        return
    fi
    version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' pyproject.toml | head -1)
    source=$(source_url)
    say "building $IMAGE from $base with buildah (a few minutes: two stages, dependencies from PyPI)"
    # The host's CA bundle is mounted for pip in the build only (HTTPS goes through a proxy whose CA
    # it holds); --pull=never so a base that is not here fails at once instead of waiting on a registry.
    local ca=()
    [[ -f $CA_BUNDLE ]] && ca=(--build-arg "PIP_CERT=$CA_BUNDLE" -v "$CA_BUNDLE:$CA_BUNDLE:ro")
    buildah build --isolation chroot --format docker --pull=never --layers=false \
        --build-arg "BASE_IMAGE=$base" --build-arg "VERSION=$version" --build-arg "SOURCE=$source" "${ca[@]}" \
        -t "$built" -t "$IMAGE" . >&2
    # Older builds of this image only take room (under vfs every one is a full copy).
    podman images --format '{{.Repository}}:{{.Tag}}' | grep -F "${IMAGE%:*}:ctx-" |
        grep -v -F "$built" | xargs -r podman rmi >/dev/null 2>&1 || true
    say "built $IMAGE in $((SECONDS - started)) s, $(podman image inspect --format '{{.Size}}' "$IMAGE" |
        awk '{printf "%.0f MB", $1 / 1e6}')"
}

main
