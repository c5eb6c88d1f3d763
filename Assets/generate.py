#!/usr/bin/env python3
"""Generates Backbeat's demo assets: four drum sounds and a small music library.

Standard library only, plus the command-line tools `sox`, `oggenc` and
`vorbiscomment`. Every random choice comes from a fixed seed, and sox runs in
repeatable mode with oggenc given fixed stream serials, so running this again
on the same tools rewrites the same files.

    python3 Assets/generate.py          # or: make assets

Layout written (relative to this script):
    Drums/{snare,bass,tambourine,maraca}.wav   48 kHz mono 16-bit
    Drums/{...}-2.wav, Drums/{...}-3.wav        two more variations of each pad
    Drums/pads.json                             the sound bank that makes the pads sound events
    Music/*.ogg                                 tagged Ogg Vorbis with artwork
    Music/demo-mix.m3u                          a playlist of all six songs
    Music/noartwork.png                         placeholder artwork
    Level/{explore,combat}-{pads,drums}.ogg     level music: two sections of two stems (loop tags, BPM)
    Level/stinger.ogg                           a stinger for the level music
"""

import array
import base64
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import wave
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DRUMS = os.path.join(HERE, "Drums")
MUSIC = os.path.join(HERE, "Music")

DRUM_RATE = 48_000
# Music is synthesised at half rate (everything in it stays under 11 kHz) and
# sox resamples it to 48 kHz: half the Python work, same sound.
SYNTH_RATE = 24_000
OUT_RATE = 48_000
TAU = 2 * math.pi

# ---------------------------------------------------------------- utilities


def noise(n, rng):
    return [rng.random() * 2 - 1 for _ in range(n)]


def highpass(x):
    """First difference: a gentle 6 dB/octave tilt towards the top."""
    return [b - a for a, b in zip([0.0] + x[:-1], x)]


def lowpass(x, coefficient):
    """One-pole low-pass; coefficient in (0, 1], smaller is darker."""
    out, y = [], 0.0
    for s in x:
        y += coefficient * (s - y)
        out.append(y)
    return out


def decay(n, rate, tau, attack=0.001):
    """Exponential decay with a short linear attack (no click)."""
    a = max(1, int(attack * rate))
    k = 1.0 / (tau * rate)
    return [min(1.0, i / a) * math.exp(-i * k) for i in range(n)]


def mul(x, y):
    return [a * b for a, b in zip(x, y)]


def add_into(buf, start, x, gain=1.0):
    """Mixes x into buf at start (clipped to buf's length)."""
    if start < 0:
        x, start = x[-start:], 0
    end = min(len(buf), start + len(x))
    if end <= start:
        return
    buf[start:end] = [a + gain * b for a, b in zip(buf[start:end], x)]


def peak(x):
    return max(abs(min(x)), abs(max(x))) if x else 0.0


def normalise(x, dbfs):
    p = peak(x)
    g = (10 ** (dbfs / 20)) / p if p > 0 else 0.0
    return [s * g for s in x]


def fade_out(x, seconds, rate):
    n = min(len(x), int(seconds * rate))
    for i in range(n):
        x[len(x) - n + i] *= 1 - (i + 1) / n
    return x


def write_wav(path, samples, rate):
    pcm = array.array("h", (int(round(max(-1.0, min(1.0, s)) * 32767)) for s in samples))
    if sys.byteorder == "big":
        pcm.byteswap()
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def run(*args):
    subprocess.run(args, check=True)


# --------------------------------------------------------------------- drums
# Each function renders one hit at `rate`; the demo pads use them at 48 kHz
# and the songs reuse them at the synthesis rate.


def kick(rate, rng, seconds=0.5, f0=150.0):
    """A sine falling from `f0` (150 Hz) to 48 Hz with a short noise click on top."""
    n = int(seconds * rate)
    f1, tf, ta = 48.0, 0.035, 0.16
    body = []
    for i in range(n):
        t = i / rate
        phase = TAU * (f1 * t + (f0 - f1) * tf * (1 - math.exp(-t / tf)))
        body.append(math.sin(phase) * math.exp(-t / ta))
    click = mul(highpass(noise(int(0.004 * rate), rng)), decay(int(0.004 * rate), rate, 0.0008, 0.0001))
    add_into(body, 0, click, 0.6)
    return fade_out(body, 0.02, rate)


def snare(rate, rng, seconds=0.35):
    """Two tone partials (the drum head) and bright noise (the wires)."""
    n = int(seconds * rate)
    tone = [0.55 * math.sin(TAU * 185 * i / rate) * math.exp(-i / (0.045 * rate))
            + 0.3 * math.sin(TAU * 330 * i / rate) * math.exp(-i / (0.03 * rate))
            for i in range(n)]
    wires = mul(highpass(noise(n, rng)), decay(n, rate, 0.085))
    add_into(tone, 0, wires, 0.75)
    tone = [s * min(1.0, i / (0.0008 * rate)) for i, s in enumerate(tone)]
    return fade_out(tone, 0.02, rate)


def tambourine(rate, rng, seconds=0.6):
    """Metal jingles: inharmonic high partials struck three times in a row."""
    n = int(seconds * rate)
    top = rate * 0.45
    partials = [f for f in (3150, 4270, 5390, 6810, 7930, 9420, 11230, 13570) if f < top]
    out = [0.0] * n
    for onset, gain, tau in ((0.0, 1.0, 0.11), (0.021, 0.55, 0.08), (0.047, 0.35, 0.07), (0.09, 0.2, 0.06)):
        m = n - int(onset * rate)
        env = decay(m, rate, tau, 0.0005)
        ring = [0.0] * m
        for f in partials:
            ph, amp = rng.random() * TAU, 0.5 + rng.random() * 0.5
            w = TAU * f * (1 + (rng.random() - 0.5) * 0.01) / rate
            ring = [r + amp * math.sin(ph + w * i) for i, r in enumerate(ring)]
        hiss = highpass(highpass(noise(m, rng)))
        hit = [e * (0.16 * r + 0.5 * h) for e, r, h in zip(env, ring, hiss)]
        add_into(out, int(onset * rate), hit, gain)
    return fade_out(out, 0.03, rate)


def maraca(rate, rng, seconds=0.2):
    """One shake: a swell of very bright bead noise, then the beads settling."""
    n = int(seconds * rate)
    hiss = highpass(highpass(noise(n, rng)))
    env = []
    for i in range(n):
        t = i / rate
        swell = (t / 0.012) if t < 0.012 else math.exp(-(t - 0.012) / 0.028)
        settle = 0.35 * math.exp(-(t - 0.07) / 0.02) if t >= 0.07 else 0.0
        env.append(swell + settle)
    grains = [1.0 if rng.random() < 0.5 else 0.45 for _ in range(n)]  # beads, not smooth air
    return fade_out([h * e * g for h, e, g in zip(hiss, env, grains)], 0.01, rate)


def hat(rate, rng, seconds=0.06, tau=0.018):
    n = int(seconds * rate)
    return fade_out(mul(highpass(highpass(noise(n, rng))), decay(n, rate, tau, 0.0005)), 0.005, rate)


def ride(rate, rng, seconds=0.7):
    n = int(seconds * rate)
    out = [0.0] * n
    for f, a in ((2890, 0.5), (3760, 0.35), (5210, 0.25), (6430, 0.2), (8210, 0.15)):
        out = [o + a * math.sin(TAU * f * i / rate) for i, o in enumerate(out)]
    out = [0.3 * o + 0.25 * h for o, h in zip(out, highpass(noise(n, rng)))]
    return fade_out(mul(out, decay(n, rate, 0.25, 0.0005)), 0.05, rate)


def crash(rate, rng, seconds=1.6):
    n = int(seconds * rate)
    return fade_out(mul(highpass(noise(n, rng)), decay(n, rate, 0.45, 0.002)), 0.2, rate)


# ------------------------------------------------------------- instruments


TABLE = 4096
MASK = TABLE - 1


def table(harmonics, shape=None):
    """One cycle of a sum of harmonics {k: amplitude}, peak-normalised."""
    t = [sum(a * math.sin(TAU * k * i / TABLE) for k, a in harmonics.items()) for i in range(TABLE)]
    if shape:
        t = [shape(s) for s in t]
    p = peak(t)
    return [s / p for s in t]


def smooth(t, passes):
    """Circular 3-tap average: tames the top of a distorted table."""
    for _ in range(passes):
        t = [(t[i - 1] + 2 * t[i] + t[(i + 1) & MASK]) / 4 for i in range(TABLE)]
    return t


SAW8 = table({k: 1.0 / k for k in range(1, 9)})
SQUARE = table({k: 1.0 / k for k in (1, 3, 5, 7, 9)})
BASS = table({1: 1.0, 2: 0.45, 3: 0.2, 4: 0.08})
SINE = table({1: 1.0})
EPIANO = table({1: 1.0, 2: 0.25, 3: 0.08})
# A power chord (root, fifth, octave) is periodic at half the root's
# frequency: harmonics 2, 3, 4 of that, as saws, driven into tanh.
POWER = smooth(table({k * h: 1.0 / k for h in (2, 3, 4) for k in range(1, 7)},
                     shape=lambda s: math.tanh(3.5 * s)), 6)
CRUNCH = smooth(table({k: 1.0 / k for k in range(1, 10)}, shape=lambda s: math.tanh(2.2 * s)), 4)


def midi_hz(note):
    return 440.0 * 2 ** ((note - 69) / 12)


def osc(tab, hz, n, rate=SYNTH_RATE, phase=0):
    inc = TABLE * hz / rate
    return [tab[int(phase + i * inc) & MASK] for i in range(n)]


def envelope(n, rate, attack, tau, release, sustain=0.0):
    """Attack, exponential fall towards `sustain`, linear release at the end."""
    a, r = max(1, int(attack * rate)), max(1, min(n, int(release * rate)))
    k = 1.0 / (tau * rate)
    env = [min(1.0, i / a) * (sustain + (1 - sustain) * math.exp(-i * k)) for i in range(n)]
    for i in range(r):
        env[n - r + i] *= 1 - (i + 1) / r
    return env


_cache = {}


def voice(kind, note, seconds):
    """One rendered note of an instrument, cached: songs repeat themselves."""
    key = (kind, note, round(seconds, 4))
    if key in _cache:
        return _cache[key]
    n = int(seconds * SYNTH_RATE)
    hz = midi_hz(note)
    R = SYNTH_RATE
    if kind == "power":
        out = mul(osc(POWER, hz / 2, n), envelope(n, R, 0.004, 0.5, 0.03, 0.55))
    elif kind == "crunch":
        out = mul(osc(CRUNCH, hz, n), envelope(n, R, 0.006, 0.6, 0.08, 0.35))
    elif kind == "bass":
        out = mul(osc(BASS, hz, n), envelope(n, R, 0.005, 0.35, 0.03, 0.3))
    elif kind == "synthbass":
        out = mul(osc(SAW8, hz, n), envelope(n, R, 0.003, 0.12, 0.02, 0.2))
    elif kind == "pad":
        wave_ = [(a + b) * 0.5 for a, b in zip(osc(SAW8, hz * 1.003, n), osc(SAW8, hz * 0.997, n, phase=TABLE // 3))]
        out = lowpass(mul(wave_, envelope(n, R, 0.25, 1.0, 0.5, 0.8)), 0.35)
    elif kind == "softpad":
        wave_ = [(a + b) * 0.5 for a, b in zip(osc(EPIANO, hz * 1.002, n), osc(SINE, hz * 0.998, n))]
        out = mul(wave_, envelope(n, R, 0.8, 2.0, 1.2, 0.85))
    elif kind == "arp":
        out = lowpass(mul(osc(SQUARE, hz, n), envelope(n, R, 0.002, 0.09, 0.02)), 0.5)
    elif kind == "bell":
        out = [a + 0.35 * b for a, b in zip(mul(osc(SINE, hz, n), envelope(n, R, 0.003, 0.9, 0.1)),
                                             mul(osc(SINE, hz * 4.0, n), envelope(n, R, 0.001, 0.12, 0.1)))]
    elif kind == "epiano":
        out = mul(osc(EPIANO, hz, n), envelope(n, R, 0.004, 0.5, 0.06, 0.15))
    else:
        raise ValueError(kind)
    _cache[key] = out
    return out


# -------------------------------------------------------------------- songs


class Song:
    def __init__(self, bpm, bars, seed, beats_per_bar=4):
        self.bpm, self.bars = bpm, bars
        self.beat = 60.0 / bpm
        self.bar = self.beat * beats_per_bar
        self.seconds = self.bar * bars + 2.0  # a final ring after the last bar
        self.buf = [0.0] * int(self.seconds * SYNTH_RATE)
        self.rng = random.Random(seed)
        self.kit = {}

    def at(self, bar, beat):
        return int((bar * self.bar + beat * self.beat) * SYNTH_RATE)

    def note(self, kind, note, bar, beat, beats, gain):
        add_into(self.buf, self.at(bar, beat), voice(kind, note, beats * self.beat), gain)

    def drum(self, name, bar, beat, gain):
        # A few variants of each hit so repeats are not identical.
        variants = self.kit.setdefault(name, [])
        if len(variants) < 3:
            maker = {"kick": kick, "snare": snare, "hat": hat, "ohat": lambda r, g: hat(r, g, 0.35, 0.12),
                     "ride": ride, "crash": crash, "shaker": maraca, "tamb": tambourine}[name]
            variants.append(maker(SYNTH_RATE, self.rng))
        hit = variants[self.rng.randrange(len(variants))]
        jitter = 1 + (self.rng.random() - 0.5) * 0.12
        add_into(self.buf, self.at(bar, beat), hit, gain * jitter)


def chord_notes(root, quality):
    return [root + i for i in {"maj": (0, 4, 7), "min": (0, 3, 7), "maj7": (0, 4, 7, 11), "m7": (0, 3, 7, 10),
                               "7": (0, 4, 7, 10), "5": (0,)}[quality]]


def rock_beat(s, bar, fill=False, open_hat=False):
    for b in (0, 2, 2.5):
        s.drum("kick", bar, b, 0.9)
    for b in (1, 3):
        s.drum("snare", bar, b, 0.7)
    for e in range(8):
        s.drum("ohat" if open_hat and e % 2 else "hat", bar, e * 0.5, 0.22 if e % 2 else 0.3)
    if fill:
        for b in (3.25, 3.5, 3.75):
            s.drum("snare", bar, b, 0.45)


def open_circuit():
    """Rock, 120 BPM: driving E power chords in eighths, bass doubling the roots."""
    s = Song(120, 16, 101)
    prog = [40, 40, 38, 45, 40, 40, 38, 45, 36, 38, 40, 40, 36, 38, 45, 40]  # E E D A ... C D E E ... C D A E
    for bar, root in enumerate(prog):
        for e in range(8):
            accent = 1.0 if e in (0, 3, 6) else 0.75
            s.note("power", root, bar, e * 0.5, 0.5, 0.32 * accent)
            s.note("bass", root - 12, bar, e * 0.5, 0.5, 0.5)
        rock_beat(s, bar, fill=bar % 4 == 3)
        if bar % 8 == 0:
            s.drum("crash", bar, 0, 0.35)
    s.note("power", 40, 16, 0, 4, 0.35)
    s.note("bass", 28, 16, 0, 4, 0.5)
    s.drum("crash", 16, 0, 0.4)
    s.drum("kick", 16, 0, 0.9)
    return s


def loud_pedal():
    """Rock, 138 BPM: A minor riff with a pedal tone and a quarter-note pulse."""
    s = Song(138, 18, 102)
    riff = [(33, 0), (33, 0.5), (36, 1), (33, 1.5), (38, 2), (33, 2.5), (40, 3), (38, 3.5)]
    sections = [33] * 4 + [29, 31, 33, 33] + [33] * 4 + [29, 31, 28, 28] + [33, 33]
    for bar, root in enumerate(sections):
        shift = root - 33
        for note, beat in riff:
            s.note("bass", note + shift - 12 if note == 33 else note + shift - 12, bar, beat, 0.5, 0.45)
        for beat in range(4):
            s.note("power", root + 12, bar, beat, 1, 0.28 if beat else 0.34)
        for b in range(4):
            s.drum("kick", bar, b, 0.8)
        for b in (1, 3):
            s.drum("snare", bar, b, 0.75)
        for e in range(8):
            s.drum("hat", bar, e * 0.5, 0.25)
        if bar % 4 == 0:
            s.drum("crash", bar, 0, 0.3)
        if bar % 4 == 3:
            s.drum("tamb", bar, 3.5, 0.3)
    s.note("power", 45, 18, 0, 5, 0.38)
    s.drum("crash", 18, 0, 0.4)
    s.drum("kick", 18, 0, 0.9)
    return s


def backroad_anthem():
    """Rock, 96 BPM: a half-time G-D-Em-C anthem with strummed crunchy triads."""
    s = Song(96, 12, 103)
    prog = [(43, "maj"), (38, "maj"), (40, "min"), (36, "maj")] * 3
    for bar, (root, q) in enumerate(prog):
        notes = chord_notes(root + 12, q) + [root + 24]
        for beat in (0, 1.5, 2, 3, 3.5):
            for j, n in enumerate(notes):
                s.note("crunch", n, bar, beat + j * 0.03, 1.0, 0.12)
        for beat, length in ((0, 1.5), (1.5, 0.5), (2, 1), (3, 1)):
            s.note("bass", root - 12, bar, beat, length, 0.5)
        for b in (0, 1.5, 2.5):
            s.drum("kick", bar, b, 0.85)
        s.drum("snare", bar, 2, 0.8)
        for e in range(8):
            s.drum("ohat" if e == 7 else "hat", bar, e * 0.5, 0.25)
        if bar % 4 == 0:
            s.drum("crash", bar, 0, 0.35)
        s.drum("tamb", bar, 1, 0.2)
        s.drum("tamb", bar, 3, 0.2)
    for n in chord_notes(55, "maj"):
        s.note("crunch", n, 12, 0, 6, 0.15)
    s.note("bass", 31, 12, 0, 4, 0.5)
    s.drum("crash", 12, 0, 0.4)
    s.drum("kick", 12, 0, 0.9)
    return s


def sodium_lights():
    """Electronic, 118 BPM: Am-F-C-G pads, a sixteenth arpeggio, four on the floor."""
    s = Song(118, 16, 104)
    prog = [(57, "min"), (53, "maj"), (48, "maj"), (55, "maj")] * 4
    for bar, (root, q) in enumerate(prog):
        notes = chord_notes(root, q)
        for n in notes:
            s.note("pad", n, bar, 0, 4, 0.12)
        if bar >= 2:
            pattern = notes + [notes[0] + 12]
            for k in range(16):
                s.note("arp", pattern[k % 4 if k % 8 < 4 else 3 - k % 4] + 12, bar, k * 0.25, 0.25, 0.11)
        for b in range(4):
            s.note("synthbass", root - 24, bar, b + 0.5, 0.5, 0.3)
            s.drum("kick", bar, b, 0.9)
            s.drum("hat", bar, b + 0.5, 0.3)
        if bar >= 4:
            s.drum("snare", bar, 1, 0.5)
            s.drum("snare", bar, 3, 0.5)
        if bar >= 8:
            for k in range(16):
                s.drum("shaker", bar, k * 0.25, 0.12 if k % 2 else 0.2)
    for n in chord_notes(57, "min"):
        s.note("pad", n, 16, 0, 6, 0.14)
    s.drum("kick", 16, 0, 0.9)
    return s


def half_moon_drive():
    """Ambient, 80 BPM: slow major-seventh pads, a bell melody, a soft pulse."""
    s = Song(80, 10, 105)
    prog = [(50, "maj7"), (47, "m7"), (43, "maj7"), (45, "7")] * 2 + [(50, "maj7"), (45, "7")]
    melody = [74, 76, 78, 81, 78, 76, 74, 73, 71, 73, 74, 76, 78, 76, 73, 69]
    for bar, (root, q) in enumerate(prog):
        for n in chord_notes(root, q):
            s.note("softpad", n, bar, 0, 4.2, 0.1)
        s.note("bass", root - 12, bar, 0, 2.5, 0.35)
        s.note("bass", root - 12, bar, 2.5, 1.5, 0.25)
        for k in range(2):
            s.note("bell", melody[(bar * 2 + k) % len(melody)], bar, k * 2 + (0.5 if k else 0), 2, 0.16)
        s.drum("kick", bar, 0, 0.55)
        s.drum("kick", bar, 2.5, 0.35)
        for k in range(8):
            s.drum("shaker", bar, k * 0.5 + 0.25, 0.1)
        if bar >= 2:
            s.drum("snare", bar, 3, 0.18)
    for n in chord_notes(50, "maj7"):
        s.note("softpad", n, 10, 0, 2.6, 0.12)
    s.note("bell", 74, 10, 0, 2.6, 0.16)
    return s


def blue_hour_walk():
    """Jazz, 104 BPM swing: ii-V-I in F, walking bass, electric piano comping, ride."""
    s = Song(104, 13, 106)
    prog = [(55, "m7"), (48, "7"), (53, "maj7"), (50, "7"), (55, "m7"), (48, "7"), (57, "m7"), (50, "7"),
            (46, "maj7"), (48, "7"), (53, "maj7"), (50, "7"), (55, "m7")]
    swing = 2 / 3
    for bar, (root, q) in enumerate(prog):
        nxt = prog[(bar + 1) % len(prog)][0]
        third = 3 if q in ("m7", "min") else 4
        walk = [root, root + third, root + 7, nxt + (1 if s.rng.random() < 0.5 else -1)]
        for b, n in enumerate(walk):
            s.note("bass", n - 12, bar, b, 1, 0.5)
        voicing = [root + 12 + i for i in (chord_notes(0, q)[1:] + [14])]
        for beat, length in ((1 + swing, 0.8), (3, 0.5)) if bar % 2 else ((0, 1.2), (2 + swing, 0.8)):
            for n in voicing:
                s.note("epiano", n, bar, beat, length, 0.12)
        for b in range(4):
            s.drum("ride", bar, b, 0.22)
            if b % 2:
                s.drum("ride", bar, b + swing, 0.15)
                s.drum("hat", bar, b, 0.2)
        s.drum("kick", bar, 0, 0.3)
        if bar % 4 == 3:
            s.drum("snare", bar, 3 + swing, 0.25)
    for n in [53, 57, 60, 64, 67]:
        s.note("epiano", n, 13, 0, 5, 0.12)
    s.note("bass", 41, 13, 0, 3, 0.5)
    s.drum("ride", 13, 0, 0.25)
    return s


# ------------------------------------------------------------------ artwork


def png(width, height, pixel):
    """A truecolour PNG; pixel(x, y) -> (r, g, b) bytes 0-255."""
    raw = bytearray()
    for y in range(height):
        raw.append(0)  # filter: none
        for x in range(width):
            raw.extend(pixel(x, y))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


ART = 192


def clamp(v):
    return max(0, min(255, int(v)))


def art_garage(x, y):
    """Garage Tapes: red and black stripes behind a cassette's two reels."""
    stripe = ((x + y) // 16) % 2
    r, g, b = (200, 32, 40) if stripe else (30, 20, 22)
    for cx in (64, 128):
        d = math.hypot(x - cx, y - 104)
        if d < 26:
            r, g, b = (235, 230, 220) if d > 9 else (30, 20, 22)
    if 40 <= y < 62 and 28 <= x < 164:
        r, g, b = (240, 200, 60)
    return bytes((r, g, b))


def art_night(x, y):
    """Night Shift: a navy-to-violet sky, a yellow moon and scattered stars."""
    t = y / ART
    r, g, b = 20 + 70 * t, 24 + 10 * t, 70 + 60 * t
    d = math.hypot(x - 130, y - 62)
    if d < 30:
        r, g, b = 250, 225, 120
    elif d < 40:
        glow = (40 - d) / 10
        r, g, b = r + 120 * glow, g + 100 * glow, b + 40 * glow
    if (x * 7919 + y * 104729) % 997 < 3 and y < 140:
        r, g, b = 255, 255, 255
    if y > 150:
        r, g, b = 12, 12, 20  # the skyline
    return bytes((clamp(r), clamp(g), clamp(b)))


def art_sampler(x, y):
    """Backbeat Sampler: a bright four-by-four grid with a white record in the middle."""
    palette = [(240, 90, 60), (250, 200, 50), (70, 180, 120), (60, 130, 220), (170, 90, 200), (240, 140, 180)]
    r, g, b = palette[((x // 48) + 2 * (y // 48)) % len(palette)]
    d = math.hypot(x - ART / 2, y - ART / 2)
    if d < 60:
        r, g, b = (250, 250, 250) if d > 12 else (30, 30, 30)
    return bytes((r, g, b))


def art_none(x, y):
    """The placeholder: grey with a darker note shape."""
    v = 150 + 40 * y // ART
    head = math.hypot((x - 84) / 1.3, y - 128) < 20
    stem = 100 <= x < 108 and 48 <= y < 128
    flag = 108 <= x < 132 and 48 <= y < 60 + (x - 108) // 2
    if head or stem or flag:
        v = 80
    return bytes((v, v, v))


def picture_block(png_bytes, description):
    """The FLAC PICTURE block Vorbis comments carry as METADATA_BLOCK_PICTURE."""
    mime, desc = b"image/png", description.encode()
    block = (struct.pack(">II", 3, len(mime)) + mime + struct.pack(">I", len(desc)) + desc
             + struct.pack(">IIIII", ART, ART, 24, 0, len(png_bytes)) + png_bytes)
    return base64.b64encode(block).decode("ascii")


# ------------------------------------------------------------------ library

ALBUMS = {
    "Garage Tapes": dict(albumartist="The Backbeats", date="2024", art=art_garage),
    "Night Shift": dict(albumartist="Mira Okafor", date="2025", art=art_night),
    "Backbeat Sampler": dict(albumartist="Various Artists", date="2025", art=art_sampler, compilation=True),
}

# (file stem, title, artist, album, track, genre, render function)
TRACKS = [
    ("garage-tapes-01-open-circuit", "Open Circuit", "The Backbeats", "Garage Tapes", 1, "Rock", open_circuit),
    ("garage-tapes-02-loud-pedal", "Loud Pedal", "The Backbeats", "Garage Tapes", 2, "Rock", loud_pedal),
    ("night-shift-01-sodium-lights", "Sodium Lights", "Mira Okafor", "Night Shift", 1, "Electronic", sodium_lights),
    ("night-shift-02-half-moon-drive", "Half Moon Drive", "Mira Okafor", "Night Shift", 2, "Ambient",
     half_moon_drive),
    ("backbeat-sampler-01-backroad-anthem", "Backroad Anthem", "The Backbeats", "Backbeat Sampler", 1, "Rock",
     backroad_anthem),
    ("backbeat-sampler-02-blue-hour-walk", "Blue Hour Walk", "Quarter Rest Trio", "Backbeat Sampler", 2, "Jazz",
     blue_hour_walk),
]

# Per-genre finishing touches applied by sox after resampling.
FINISH = {
    "Rock": ["reverb", "15", "50", "40"],
    "Electronic": ["reverb", "30", "50", "70"],
    "Ambient": ["reverb", "60", "50", "100"],
    "Jazz": ["reverb", "25", "60", "50"],
}


# The pads' variations: the same instrument struck again (new noise, and for the
# bass drum a slightly different head), normalised to the same peak, so their
# onsets and levels match the first.
VARIATIONS = {"snare": ({}, {}), "bass": ({"f0": 142.0}, {"f0": 158.0}), "tambourine": ({}, {}), "maraca": ({}, {})}

PAD_BANK = """{
  "version": 1,
  "events": [
%s
  ]
}
"""


def make_drums():
    os.makedirs(DRUMS, exist_ok=True)
    events = []
    for name, maker, seed in (("snare", snare, 1), ("bass", kick, 2), ("tambourine", tambourine, 3),
                              ("maraca", maraca, 4)):
        samples = normalise(maker(DRUM_RATE, random.Random(seed)), -1.5)
        write_wav(os.path.join(DRUMS, name + ".wav"), samples, DRUM_RATE)
        print(f"  Drums/{name}.wav  {len(samples) / DRUM_RATE:.2f} s")
        files = [name + ".wav"]
        for number, options in enumerate(VARIATIONS[name], start=2):
            variation = normalise(maker(DRUM_RATE, random.Random(seed + 100 * number), **options), -1.5)
            write_wav(os.path.join(DRUMS, f"{name}-{number}.wav"), variation, DRUM_RATE)
            files.append(f"{name}-{number}.wav")
        print(f"  Drums/{name}-2.wav, {name}-3.wav")
        sounds = ", ".join(f'"{f}"' for f in files)
        events.append(f'    {{"name": "{name}", "mode": "random", "avoidLast": 1, "sounds": [{sounds}],\n'
                      f'     "pitchCents": [-25, 25], "volumeDecibels": [-1, 0], "maxInstances": 8, "seed": {seed}}}')
    with open(os.path.join(DRUMS, "pads.json"), "w") as f:
        f.write(PAD_BANK % ",\n".join(events))
    print("  Drums/pads.json")


def make_music(tmp):
    os.makedirs(MUSIC, exist_ok=True)
    art = {album: png(ART, ART, info["art"]) for album, info in ALBUMS.items()}
    with open(os.path.join(MUSIC, "noartwork.png"), "wb") as f:
        f.write(png(ART, ART, art_none))
    totals = {album: sum(1 for t in TRACKS if t[3] == album) for album in ALBUMS}
    playlist = ["#EXTM3U", "#PLAYLIST:Backbeat Demo Mix"]
    # The playlist mixes the albums, so it is a real order rather than the library's.
    order = [0, 2, 4, 1, 5, 3]
    durations = {}
    for serial, (stem, title, artist, album, number, genre, render) in enumerate(TRACKS, start=1):
        song = render()
        synth = os.path.join(tmp, stem + ".synth.wav")
        final = os.path.join(tmp, stem + ".wav")
        write_wav(synth, normalise(song.buf, -6), SYNTH_RATE)
        # -R: repeatable (fixed dither seed). Fade the tail, then normalise to -1.5 dBFS
        # so the lossy encoding's overshoot stays clear of 0 dBFS.
        run("sox", "-R", "-V1", synth, "-b", "16", final, "rate", "-v", str(OUT_RATE), *FINISH[genre],
            "fade", "t", "0", f"{song.seconds:.3f}", "1.5", "gain", "-n", "-1.5")
        ogg = os.path.join(MUSIC, stem + ".ogg")
        run("oggenc", "-Q", "-q", "1", "--serial", str(serial), "-o", ogg, final)
        info = ALBUMS[album]
        tags = [f"TITLE={title}", f"ARTIST={artist}", f"ALBUM={album}", f"ALBUMARTIST={info['albumartist']}",
                f"GENRE={genre}", f"TRACKNUMBER={number}", f"TRACKTOTAL={totals[album]}", "DISCNUMBER=1",
                "DISCTOTAL=1", f"DATE={info['date']}", f"BPM={song.bpm}"]
        if info.get("compilation"):
            tags.append("COMPILATION=1")
        tags.append("METADATA_BLOCK_PICTURE=" + picture_block(art[album], f"{album} front cover"))
        comments = os.path.join(tmp, stem + ".tags")
        with open(comments, "w", encoding="utf-8") as f:
            f.write("\n".join(tags) + "\n")
        run("vorbiscomment", "-w", "-c", comments, ogg)
        durations[serial - 1] = song.seconds
        print(f"  Music/{stem}.ogg  {song.seconds:.1f} s  {song.bpm} BPM  {genre}  {os.path.getsize(ogg) // 1024} KB")
    for i in order:
        stem, title, artist = TRACKS[i][:3]
        playlist += [f"#EXTINF:{round(durations[i])},{artist} - {title}", stem + ".ogg"]
    with open(os.path.join(MUSIC, "demo-mix.m3u"), "w", encoding="utf-8") as f:
        f.write("\n".join(playlist) + "\n")


# ---------------------------------------------------------------- level music
#
# Music for a game level, for AdaptiveMusicPlayer: 120 BPM in 4/4 (a bar is
# 2 s, 96,000 frames at 48 kHz). "explore" is a one-bar intro and a four-bar
# loop (LOOPSTART/LOOPLENGTH tags), "combat" a four-bar loop from its start;
# each section is two stems of the same length, "pads" (chords and bass) and
# "drums", to be played sample-locked as layers; "stinger" is a crash and a
# chord stab. A loop's ring past its end is folded back onto its start, so the
# loop is seamless.

LEVEL = os.path.join(HERE, "Level")
LEVEL_BPM = 120
LEVEL_BAR_FRAMES = OUT_RATE * 60 * 4 // LEVEL_BPM


def explore_stems():
    pads, drums = Song(LEVEL_BPM, 5, 201), Song(LEVEL_BPM, 5, 202)
    prog = [(57, "min"), (53, "maj"), (48, "maj"), (55, "maj")]
    for n in chord_notes(57, "min"):
        pads.note("pad", n, 0, 0, 4, 0.1)  # the intro: the first chord alone
    for bar in range(1, 5):
        root, q = prog[bar - 1]
        for n in chord_notes(root, q):
            pads.note("pad", n, bar, 0, 4, 0.12)
        for b in range(4):
            pads.note("synthbass", root - 24, bar, b + 0.5, 0.5, 0.25)
            drums.drum("kick", bar, b, 0.9)
            drums.drum("hat", bar, b + 0.5, 0.3)
        for b in (1, 3):
            drums.drum("snare", bar, b, 0.6)
    return pads, drums, 1, 4


def combat_stems():
    pads, drums = Song(LEVEL_BPM, 4, 203), Song(LEVEL_BPM, 4, 204)
    prog = [(50, "min"), (50, "min"), (46, "maj"), (48, "maj")]
    for bar, (root, q) in enumerate(prog):
        notes = chord_notes(root, q)
        for k in range(16):
            pads.note("arp", notes[k % 3] + 24, bar, k * 0.25, 0.25, 0.12)
        for e in range(8):
            pads.note("synthbass", root - 12, bar, e * 0.5, 0.5, 0.25)
        drums.drum("crash" if bar == 0 else "ohat", bar, 0, 0.5)
        for e in range(8):
            drums.drum("kick" if e % 2 == 0 else "hat", bar, e * 0.5, 0.9 if e % 2 == 0 else 0.3)
        for b in (1, 3):
            drums.drum("snare", bar, b, 0.75)
    return pads, drums, 0, 4


def stinger():
    s = Song(LEVEL_BPM, 1, 205)
    s.drum("crash", 0, 0, 0.8)
    for n in chord_notes(62, "maj"):
        s.note("pad", n, 0, 0, 1, 0.2)
    s.note("synthbass", 38, 0, 0, 1, 0.3)
    return s


def loop_folded(buf, intro_bars, loop_bars, song):
    """The intro and loop of `buf`, with what rings past the loop's end added back from its start."""
    start, end = song.at(intro_bars, 0), song.at(intro_bars + loop_bars, 0)
    out = list(buf[:end])
    for i, v in enumerate(buf[end:]):
        out[start + i % (end - start)] += v
    return out


def encode_level(tmp, name, samples, serial, tags):
    synth = os.path.join(tmp, name + ".synth.wav")
    final = os.path.join(tmp, name + ".wav")
    write_wav(synth, normalise(samples, -6), SYNTH_RATE)
    run("sox", "-R", "-V1", synth, "-b", "16", final, "rate", "-v", str(OUT_RATE), "gain", "-n", "-3")
    ogg = os.path.join(LEVEL, name + ".ogg")
    run("oggenc", "-Q", "-q", "2", "--serial", str(serial), "-o", ogg, final)
    comments = os.path.join(tmp, name + ".tags")
    with open(comments, "w", encoding="utf-8") as f:
        f.write("\n".join([f"TITLE=Level 1 {name}", "ARTIST=Backbeat", f"BPM={LEVEL_BPM}"] + tags) + "\n")
    run("vorbiscomment", "-w", "-c", comments, ogg)
    print(f"  Level/{name}.ogg  {len(samples) / SYNTH_RATE:.1f} s  {os.path.getsize(ogg) // 1024} KB")


def make_level(tmp):
    os.makedirs(LEVEL, exist_ok=True)
    serial = 201
    for section, make in (("explore", explore_stems), ("combat", combat_stems)):
        pads, drums, intro, loop = make()
        for stem, song in (("pads", pads), ("drums", drums)):
            tags = [f"LOOPSTART={intro * LEVEL_BAR_FRAMES}", f"LOOPLENGTH={loop * LEVEL_BAR_FRAMES}"]
            encode_level(tmp, f"{section}-{stem}", loop_folded(song.buf, intro, loop, song), serial, tags)
            serial += 1
    s = stinger()
    encode_level(tmp, "stinger", fade_out(s.buf[:int(1.5 * SYNTH_RATE)], 0.3, SYNTH_RATE), serial, [])


def main():
    for tool in ("sox", "oggenc", "vorbiscomment"):
        if shutil.which(tool) is None:
            sys.exit(f"generate.py: `{tool}` not found; install sox and vorbis-tools (make deps)")
    print("Drums:")
    make_drums()
    print("Music:")
    with tempfile.TemporaryDirectory() as tmp:
        make_music(tmp)
    print("Level music:")
    with tempfile.TemporaryDirectory() as tmp:
        make_level(tmp)


if __name__ == "__main__":
    main()
