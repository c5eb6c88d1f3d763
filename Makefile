# Backbeat: `make test` and `make demo` are all a fresh machine needs.

APT_PACKAGES := pkg-config libopenal-dev libvorbis-dev libsndfile1-dev libsamplerate0-dev \
                libstb-dev libebur128-dev vorbis-tools sox \
                libdbus-1-dev dbus-daemon mpv mpv-mpris playerctl
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
SWIFT ?= swift

.PHONY: all deps build release test demo bench assets clean

all: build

# Installs whichever system packages are missing (apt-get, once).
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "Installing system packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

demo: release
	.build/release/drumpad --script Demo/demo.script

bench: release
	.build/release/backbeat bench

# Regenerates the demo's drums and music library (deterministic; see Assets/README.md).
assets: deps
	python3 Assets/generate.py

clean:
	rm -rf .build out
