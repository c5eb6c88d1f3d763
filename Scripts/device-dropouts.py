#!/usr/bin/env python3
"""Whose are the device's dropouts? Plays clients one after another into the
null sink of a private PulseAudio server, records the sink's monitor during
each, and counts silences of 1 ms or more between the first and the last
sound (as `bench device` does), next to the server's own count of the
stream's underruns (its debug log's "Implicit underrun of ..." lines).

Clients, each at a period size and count such as 128x3:
  pacat     a 440-Hz tone from pacat, PulseAudio's own client, asking for the
            buffer OpenAL Soft 1.19.1 asks for (tlength size x count frames,
            minreq one period, adjust-latency)
  raw       `backbeat bench device-scene --side raw`: raw OpenAL Soft, the scene
  backbeat  `backbeat bench device-scene --side backbeat`: the scene

A busy loop holds a core while they play; every client of a round plays in
turn, so they see the same load. The Devices article's sweep was

  nice -n 19 Scripts/device-dropouts.py --seconds 15 --rounds 1 \\
      pacat:128x3 raw:128x3 backbeat:128x3 pacat:384x3 raw:384x3 backbeat:384x3

and its real-time rows added `--realtime` (the server's threads SCHED_RR 6,
the clients 4; needs CAP_SYS_NICE).
"""
import argparse
import array
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RATE = 48000


def dropouts(path, minimum=48):
    """Lengths in frames of the silences of at least `minimum` frames between the first and last sound."""
    samples = array.array("f")
    with open(path, "rb") as f:
        data = f.read()
    samples.frombytes(data[: len(data) // 8 * 8])
    frames = len(samples) // 2
    silent = [abs(samples[2 * i]) < 1e-6 and abs(samples[2 * i + 1]) < 1e-6 for i in range(frames)]
    try:
        first = silent.index(False)
        last = frames - 1 - silent[::-1].index(False)
    except ValueError:
        return [], 0.0
    runs, run = [], 0
    for i in range(first, last + 1):
        if silent[i]:
            run += 1
        else:
            if run >= minimum:
                runs.append(run)
            run = 0
    return runs, (last - first) / RATE


def start_server(directory, realtime):
    with open(os.path.join(directory, "startup.pa"), "w") as f:
        f.write(
            ".fail\n"
            f"load-module module-null-sink sink_name=Sink rate={RATE} norewinds=1 "
            "sink_properties=device.description=Sink\n"
            f"load-module module-null-source source_name=keepawake rate={RATE} description=keepawake\n"
            "load-module module-loopback source=keepawake sink=Sink latency_msec=5 source_dont_move=true "
            "sink_dont_move=true sink_input_properties=media.name=keepawake\n"
            "set-default-sink Sink\n"
            f"load-module module-native-protocol-unix socket={directory}/native auth-anonymous=1 "
            "auth-cookie-enabled=0\n"
        )
    env = {"PATH": "/usr/bin:/bin", "HOME": directory, "XDG_RUNTIME_DIR": directory}
    log = open(os.path.join(directory, "daemon.log"), "w")
    daemon = subprocess.Popen(
        ["pulseaudio", "-n", "-F", f"{directory}/startup.pa", "--daemonize=no", "--use-pid-file=no",
         "--system=false", "--exit-idle-time=-1", "--log-target=stderr", "--log-level=debug"],
        env=env, stdout=log, stderr=log)
    client = dict(os.environ, PULSE_SERVER=f"unix:{directory}/native")
    for _ in range(100):
        if subprocess.run(["pactl", "info"], env=client, capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    if realtime:
        subprocess.run(["chrt", "-r", "-a", "-p", "6", str(daemon.pid)], check=True)
    return daemon, client


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("clients", nargs="+", help="CLIENT:SIZExCOUNT, such as pacat:128x3")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--backbeat", default=".build/release/backbeat")
    parser.add_argument("--realtime", action="store_true", help="the server and the clients SCHED_RR")
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="backbeat-dropouts-")
    daemon, env = start_server(directory, args.realtime)
    env.update(ALSOFT_DRIVERS="pulse", ALSOFT_CONF="")
    tone = os.path.join(directory, "tone.raw")
    wave = array.array("f")
    for i in range(RATE * (args.seconds + 1)):
        value = 0.2 * math.sin(2 * math.pi * 440 * i / RATE)
        wave.extend((value, value))
    with open(tone, "wb") as f:
        wave.tofile(f)
    song = os.path.join(directory, "song.ogg")
    subprocess.run(["sox", "-n", "-r", "44100", "-c", "2", song, "synth", str(args.seconds + 5), "sine", "300",
                    "sine", "500", "vol", "0.5"], check=True)
    prefix = ["chrt", "-r", "4"] if args.realtime else []
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    totals = {}
    log = os.path.join(directory, "daemon.log")
    try:
        for round_ in range(1, args.rounds + 1):
            for spec in args.clients:
                kind, setting = spec.split(":")
                size, count = (int(n) for n in setting.split("x"))
                recording = os.path.join(directory, "monitor.raw")
                before = os.path.getsize(log)
                parec = subprocess.Popen(
                    ["parec", "--device=Sink.monitor", "--format=float32le", f"--rate={RATE}", "--channels=2",
                     "--latency-msec=5", "--raw"], stdout=open(recording, "wb"), env=env)
                while os.path.getsize(recording) == 0:
                    time.sleep(0.002)
                load = open("/proc/loadavg").read().split()[0]
                if kind == "pacat":
                    subprocess.run(prefix + [
                        "timeout", str(args.seconds), "pacat", "--raw", "--format=float32le", f"--rate={RATE}",
                        "--channels=2", f"--latency={size * count * 8}", f"--process-time={size * 8}",
                        "--stream-name=control", tone], env=env)
                else:
                    subprocess.run(prefix + [
                        args.backbeat, "bench", "device-scene", "--side", kind, "--seconds", str(args.seconds),
                        "--latency", setting, "--song", song, "--result", os.path.join(directory, "result")],
                        env=env, check=True)
                time.sleep(0.2)
                parec.send_signal(signal.SIGTERM)
                parec.wait()
                with open(log, "rb") as f:
                    f.seek(before)
                    text = f.read().decode("utf8", "replace")
                underruns = len(re.findall(r"Implicit underrun of '(?!keepawake)", text))
                gaps, length = dropouts(recording)
                print(f"round {round_} {kind:8} {setting:7} load {load:5}: {len(gaps):3} dropouts in {length:4.1f} s, "
                      f"server underruns {underruns:3}  " + " ".join(f"{g * 1000 / RATE:.1f}" for g in gaps[:8]),
                      flush=True)
                total = totals.setdefault(spec, [0, 0, 0.0])
                total[0] += len(gaps)
                total[1] += underruns
                total[2] += length
    finally:
        busy.kill()
        daemon.terminate()
        daemon.wait()
        shutil.rmtree(directory, ignore_errors=True)
    for spec, (gaps, underruns, length) in totals.items():
        print(f"{spec:18}: {gaps} dropouts, {underruns} server underruns in {length:.0f} s")


if __name__ == "__main__":
    main()
