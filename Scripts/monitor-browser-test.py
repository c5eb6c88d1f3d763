#!/usr/bin/python3
"""The web monitor as a person uses it (`make test-monitor-web`).

Starts a private PulseAudio server with a null sink, the drum pad with
`--monitor` on it (music playing, pads hit through its standard input), then
`backbeat monitor PID --web --port 0`, and loads the address it prints in
headless Chromium (Debian's chromium and chromium-driver, through Debian's
python3-selenium). It checks, and fails when any is missing:

- the server listens on 127.0.0.1 only, answers 404 off the page, and refuses
  a WebSocket from a foreign Origin;
- a pad hit appears in the voice timeline, and a bus meter moves;
- a bad command typed into the page's socket gets an error back;
- the music bus's slider moved to 0 is heard: the sink's monitor, recorded
  with parec before and after, drops by 40 dB or more;
- when the game quits, the page says so and the tool exits 0.

It saves a screenshot of the page to out/monitor.png (1280x800), and with
--docs copies it to Docs/images/monitor.png. Run it with /usr/bin/python3
(Debian's selenium), from the repository root, after `swift build`.
"""

import argparse
import array
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.keys import Keys

RATE = 48000
SINK = "monitortest"
PADS = ("snare", "bass", "tambourine", "maraca")


class Failure(Exception):
    pass


def wait_for(what, condition, seconds):
    """Polls `condition` until it returns something true; fails after `seconds` (a hung peer)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Failure(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.05)


class SoundServer:
    """A private PulseAudio server: one null sink kept awake, as PrivateSoundServer does."""

    def __init__(self, directory):
        self.directory = directory
        script = os.path.join(directory, "startup.pa")
        with open(script, "w") as file:
            file.write("\n".join([
                ".fail",
                f"load-module module-null-sink sink_name={SINK} rate={RATE} norewinds=1 "
                f"sink_properties=device.description={SINK}",
                f"load-module module-null-source source_name=keepawake rate={RATE} description=keepawake",
                f"load-module module-loopback source=keepawake sink={SINK} latency_msec=5 "
                "source_dont_move=true sink_dont_move=true",
                f"set-default-sink {SINK}",
                f"load-module module-native-protocol-unix socket={directory}/native auth-anonymous=1 "
                "auth-cookie-enabled=0",
            ]) + "\n")
        environment = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": directory, "XDG_RUNTIME_DIR": directory}
        self.log = open(os.path.join(directory, "pulseaudio.log"), "w")
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "-F", script, "--daemonize=no", "--use-pid-file=no", "--system=false",
             "--exit-idle-time=-1", "--log-target=stderr", "--log-level=error"],
            env=environment, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        self.environment = {"PULSE_SERVER": f"unix:{directory}/native", "PULSE_COOKIE": f"{directory}/cookie"}
        wait_for("the sound server", self.answers, 20)

    def answers(self):
        if self.process.poll() is not None:
            raise Failure("pulseaudio exited at start: " + open(self.log.name).read().strip())
        return subprocess.run(["pactl", "info"], env={**os.environ, **self.environment},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10).returncode == 0

    def level_db(self, seconds):
        """The sink's monitor over `seconds`, recorded with parec: its RMS in dBFS."""
        path = os.path.join(self.directory, "recording.raw")
        with open(path, "wb") as output:
            recorder = subprocess.Popen(
                ["parec", f"--device={SINK}.monitor", "--format=float32le", f"--rate={RATE}", "--channels=2",
                 "--latency-msec=10", "--raw"],
                env={**os.environ, **self.environment}, stdout=output, stderr=subprocess.DEVNULL)
            wait_for("the first recorded samples", lambda: os.path.getsize(path) > 0, 10)
            time.sleep(seconds)
            recorder.send_signal(signal.SIGTERM)
            recorder.wait(timeout=10)
        samples = array.array("f")
        with open(path, "rb") as file:
            data = file.read()
        samples.frombytes(data[: len(data) // 8 * 8])
        if len(samples) < RATE:
            raise Failure(f"parec recorded {len(samples) // 2} frames, expected about {int(seconds * RATE)}")
        power = sum(sample * sample for sample in samples) / len(samples)
        return 10 * math.log10(power) if power > 0 else -200.0

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.log.close()


class Drumpad:
    """`drumpad --monitor` on the private server, taking commands on its standard input."""

    def __init__(self, binary, environment, directory):
        self.log = open(os.path.join(directory, "drumpad.log"), "w")
        self.process = subprocess.Popen(
            [binary, "--monitor"], env=environment, stdin=subprocess.PIPE, stdout=self.log,
            stderr=subprocess.STDOUT, text=True)
        self.hitting = threading.Event()
        self.quit = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._hit_pads, daemon=True)
        self.thread.start()

    def send(self, line):
        with self.lock:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()

    def _hit_pads(self):
        # A bar of pads every 2 s while asked to, as a person playing along.
        beat = 0
        while not self.quit.is_set():
            if self.hitting.is_set() and self.process.poll() is None:
                try:
                    self.send(PADS[beat % 2] + " 110")
                except (BrokenPipeError, ValueError):
                    return
                beat += 1
            time.sleep(0.5)

    def stop(self):
        self.quit.set()
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.log.close()


def listening_addresses(port):
    """Every local address a TCP socket listens on at `port`, from `ss -ltn`."""
    listing = subprocess.run(["ss", "-Hltn"], capture_output=True, text=True, check=True).stdout
    addresses = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[3].rsplit(":", 1)[-1] == str(port):
            addresses.append(fields[3])
    return addresses


def refuses(host, port):
    """Whether a TCP connection to host:port is refused (nothing listens there)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.settimeout(2)
            probe.connect((host, port))
        return False
    except (ConnectionRefusedError, OSError):
        return True


def http_status(url, headers=None):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def check_server(url, port):
    addresses = listening_addresses(port)
    if addresses != [f"127.0.0.1:{port}"]:
        raise Failure(f"the server listens on {addresses}, expected 127.0.0.1:{port} only")
    # Other loopback addresses reach this machine too: a server bound to any
    # address would answer on them.
    for host in ("127.0.0.2", "::1"):
        if not refuses(host, port):
            raise Failure(f"the server answers on {host}:{port}; it must listen on 127.0.0.1 only")
    if http_status(url + "no-such-page") != 404:
        raise Failure("a path off the page is not 404")
    upgrade = {
        "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": "http://example.com",
    }
    status = http_status(url + "socket", upgrade)
    if status != 403:
        raise Failure(f"a WebSocket from a foreign Origin got {status}, expected 403")


def page_query(driver, script):
    return driver.execute_script(script)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=".build/debug", help="where drumpad and backbeat are")
    parser.add_argument("--out", default="out", help="where the screenshot and logs go")
    parser.add_argument("--docs", action="store_true", help="also copy the screenshot to Docs/images/monitor.png")
    arguments = parser.parse_args()
    started = time.monotonic()
    os.makedirs(arguments.out, exist_ok=True)
    directory = tempfile.mkdtemp(prefix="backbeat-monitor-web-")
    os.chmod(directory, 0o700)
    runtime = os.path.join(directory, "run")
    os.mkdir(runtime, 0o700)

    server = game = tool = driver = None
    try:
        server = SoundServer(directory)
        environment = {**os.environ, **server.environment, "ALSOFT_DRIVERS": "pulse", "XDG_RUNTIME_DIR": runtime}
        environment.pop("ALSOFT_CONF", None)
        game = Drumpad(os.path.join(arguments.build, "drumpad"), environment, directory)
        # The library's music, the level music with its intensity up, and two
        # pads placed in 3D, so the page has levels, voices and a map to show.
        for line in ("play", "section explore", "intensity 0.7", "place snare 2 0 -1.5", "place bass -1.5 0 -2.5"):
            game.send(line)
        socket_path = os.path.join(runtime, "backbeat", f"{game.process.pid}.sock")
        wait_for("the drum pad's monitor socket", lambda: os.path.exists(socket_path) or game.process.poll() is not None, 60)
        if game.process.poll() is not None:
            raise Failure(f"drumpad exited with {game.process.returncode}: see {game.log.name}")

        tool_log = open(os.path.join(directory, "backbeat.err"), "w")
        tool = subprocess.Popen(
            [os.path.join(arguments.build, "backbeat"), "monitor", str(game.process.pid), "--web", "--port", "0"],
            env=environment, stdout=subprocess.PIPE, stderr=tool_log, text=True)
        address = tool.stdout.readline().strip()
        match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/", address)
        if not match:
            raise Failure(f"backbeat monitor --web printed {address!r}, expected http://127.0.0.1:PORT/")
        port = int(match.group(1))
        check_server(address, port)

        options = webdriver.ChromeOptions()
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,800", "--hide-scrollbars", "--no-first-run"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        # The window's size includes what headless Chromium keeps for its frame: the page gets 1280x800 exactly.
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
        driver.get(address)
        wait_for("the page to go live", lambda: page_query(driver, "return document.body.dataset.state") == "live", 30)

        # A pad hit in the voice timeline.
        game.hitting.set()
        lanes = wait_for("a pad hit in the voice timeline", lambda: page_query(driver, """
            return [...document.querySelectorAll('#timeline .lane')]
              .map(lane => lane.dataset.voiceName)
              .filter(name => /^(snare|bass|tambourine|maraca)/.test(name));"""), 30)
        print(f"timeline: pad lanes {sorted(set(lanes))}")

        # A meter that moves: the music bus's peak reading changes between snapshots.
        readings = set()

        def meter_moved():
            value = page_query(driver, "return document.querySelector('[data-bus=\"music\"] .meter')?.dataset.peak")
            if value is not None and float(value) > -100:
                readings.add(value)
            return len(readings) >= 3

        wait_for("the music bus's meter to move", meter_moved, 30)
        print(f"meter: music bus peak read {sorted(readings, key=float)} dBFS")

        # A bad command typed into the page's socket comes back as an error.
        reply = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const socket = new WebSocket(`ws://${location.host}/socket`);
            socket.onopen = () => socket.send('{"op":"set","key":"bus.music.volume","value":"loud"}');
            socket.onmessage = (message) => {
              const line = JSON.parse(message.data);
              if (line.type === "error" || line.type === "ok") { socket.close(); done(line); }
            };
            setTimeout(() => done(null), 10000);""")
        if not reply or reply.get("type") != "error":
            raise Failure(f"a bad command got {reply}, expected an error reply")
        print(f"bad command: {reply['message']}")

        time.sleep(8)  # a few more bars, so the screenshot shows lanes and levels over time
        screenshot = os.path.join(arguments.out, "monitor.png")
        driver.save_screenshot(screenshot)
        if arguments.docs:
            os.makedirs("Docs/images", exist_ok=True)
            shutil.copyfile(screenshot, "Docs/images/monitor.png")

        # The music bus's slider to 0, heard: the pads stop first, so the music alone is measured.
        game.hitting.clear()
        time.sleep(1.5)
        before = server.level_db(2)
        slider = driver.find_element("css selector", '[data-bus="music"] input.volume')
        slider.send_keys(Keys.HOME)
        wait_for("the game to report the music bus at volume 0", lambda: page_query(driver, """
            const bus = document.querySelector('[data-bus="music"]');
            return Number(bus.dataset.volume) === 0 && Number(bus.querySelector('.meter').dataset.rms) <= -100;"""), 30)
        after = server.level_db(2)
        print(f"music bus slider to 0: sink monitor {before:.1f} dBFS -> {after:.1f} dBFS")
        if before < -50:
            raise Failure(f"the music was not heard before the slider moved ({before:.1f} dBFS)")
        if before - after < 40:
            raise Failure(f"the sound dropped by {before - after:.1f} dB, expected 40 dB or more")

        # The game goes: the page says so, and the tool exits 0.
        game.send("quit")
        game.process.wait(timeout=30)
        wait_for("the page to show the game has gone",
                 lambda: page_query(driver, "return document.body.dataset.state") == "gone", 30)
        status = tool.wait(timeout=30)
        if status != 0:
            raise Failure(f"backbeat monitor --web exited {status} after the game quit, expected 0")
        shown = page_query(driver, "return document.querySelector('#status').textContent")
        print(f"game quit: the page shows {shown!r}; backbeat monitor --web exited 0")
        print(f"monitor web test passed in {time.monotonic() - started:.1f} s; screenshot {screenshot}")
        return 0
    except Failure as failure:
        print(f"monitor web test FAILED: {failure}", file=sys.stderr)
        for log in ("drumpad.log", "backbeat.err", "pulseaudio.log"):
            path = os.path.join(directory, log)
            if os.path.exists(path):
                print(f"--- {log}:\n" + open(path).read()[-2000:], file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
        if tool and tool.poll() is None:
            tool.kill()
            tool.wait()
        if game:
            game.stop()
        if server:
            server.stop()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
