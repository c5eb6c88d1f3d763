// Backbeat monitor page: reads the game's monitor lines (hello, snapshot,
// event, ok/error, and the tool's "gone") from the WebSocket, draws them, and
// sends the protocol's "set" commands back through it. No library, no build.
"use strict";

const WINDOW = 30;          // seconds of history the plot and the timeline show
const RATE = 20;            // snapshots per second the page asks for
const FLOOR_DB = -60;       // bottom of meters and the level plot
const COLORS = ["#58a6ff", "#3fb950", "#d29922", "#f85149", "#bc8cff", "#39c5cf", "#ff9bce", "#e3b341"];
const SVG = "http://www.w3.org/2000/svg";

const state = {
  socket: null,
  now: 0,                   // engine time of the newest snapshot
  lastSnapshotTime: null,
  snapshot: null,
  history: [],              // [{time, levels: {bus: rmsDB}}] over the last WINDOW s
  lanes: new Map(),         // voice id -> {id, name, bus, segments: [{state, start, end}]}
  busColors: new Map(),
  editing: new Map(),       // control key -> time until which snapshots do not move it
  nextId: 1,
  dirty: false,
};

function $(selector, root = document) { return root.querySelector(selector); }

function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function svg(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function dbText(db) { return db <= -119 ? "−∞" : db.toFixed(1); }
function dbFraction(db) { return Math.max(0, Math.min(1, (db - FLOOR_DB) / -FLOOR_DB)); }
function busColor(name) {
  if (!state.busColors.has(name)) state.busColors.set(name, COLORS[state.busColors.size % COLORS.length]);
  return state.busColors.get(name);
}

// --- the socket -------------------------------------------------------------

function connect() {
  const socket = new WebSocket(`ws://${location.host}/socket`);
  state.socket = socket;
  socket.onopen = () => send({ op: "rate", value: RATE });
  socket.onmessage = (message) => {
    let line;
    try { line = JSON.parse(message.data); } catch { return; }
    receive(line);
  };
  socket.onclose = () => {
    if (document.body.dataset.state !== "gone") setStatus("gone", "disconnected from the monitor");
  };
}

function send(command) {
  if (!state.socket || state.socket.readyState !== WebSocket.OPEN) return;
  command.id = state.nextId++;
  state.socket.send(JSON.stringify(command));
}

function set(key, value) { send({ op: "set", key, value }); }

function receive(line) {
  switch (line.type) {
    case "hello":
      $("#game").textContent = `— ${line.process} (PID ${line.pid}, ${line.output}, ${line.sampleRate} Hz)`;
      setStatus("live", "live");
      break;
    case "snapshot": takeSnapshot(line); break;
    case "event": takeEvent(line); break;
    case "error": $("#error").textContent = line.message || "error"; break;
    case "ok": $("#error").textContent = ""; break;
    case "gone": setStatus("gone", line.message || "the game has gone"); break;
  }
}

function setStatus(name, text) {
  document.body.dataset.state = name;
  $("#status").textContent = text;
}

// --- snapshots ----------------------------------------------------------------

function takeSnapshot(snapshot) {
  if (document.body.dataset.state !== "gone") setStatus("live", "live");
  const previous = state.lastSnapshotTime;
  state.snapshot = snapshot;
  state.now = snapshot.time;
  const levels = {};
  for (const bus of snapshot.buses) levels[bus.name] = bus.rmsDB;
  state.history.push({ time: snapshot.time, levels });
  while (state.history.length && state.history[0].time < state.now - WINDOW) state.history.shift();

  // A voice's lane grows while consecutive snapshots list it in one state.
  for (const voice of snapshot.voices) {
    const lane = laneFor(voice.id, voice.name, voice.bus);
    const last = lane.segments[lane.segments.length - 1];
    if (last && last.state === voice.state && previous !== null && last.end >= previous - 1e-6) {
      last.end = snapshot.time;
    } else {
      const start = last && previous !== null && last.end >= previous - 1e-6 ? last.end : snapshot.time;
      lane.segments.push({ state: voice.state, start, end: snapshot.time });
    }
    lane.gainDB = voice.gainDB;
  }
  for (const [id, lane] of state.lanes) {
    lane.segments = lane.segments.filter((segment) => segment.end >= state.now - WINDOW);
    if (!lane.segments.length && lane.seen < state.now - WINDOW) state.lanes.delete(id);
  }
  state.lastSnapshotTime = snapshot.time;
  updateControls(snapshot);
  schedule();
}

function laneFor(id, name, bus) {
  let lane = state.lanes.get(id);
  if (!lane) {
    lane = { id, name: name || `voice ${id}`, bus: bus || "", segments: [], seen: state.now };
    state.lanes.set(id, lane);
  }
  if (name) lane.name = name;
  lane.seen = state.now;
  return lane;
}

function takeEvent(event) {
  // A short sound can start and end between two snapshots: its start still gets a lane.
  if (event.event === "voiceStarted" && event.voice !== undefined && event.voice !== null) {
    const lane = laneFor(event.voice, event.name, "");
    if (!lane.segments.length) lane.segments.push({ state: "playing", start: event.time, end: event.time + 0.05 });
  }
  const list = $("#events");
  const item = element("li", { "data-event": event.event });
  item.append(element("time", {}, event.time.toFixed(2)));
  item.append(document.createTextNode(
    [event.event, event.name, event.voice !== undefined && event.voice !== null ? `#${event.voice}` : "", event.message]
      .filter(Boolean).join(" ")));
  list.prepend(item);
  while (list.children.length > 24) list.lastChild.remove();
  schedule();
}

// --- controls (built once per bus or parameter, then updated) ---------------------

function editingNow(key) { return (state.editing.get(key) || 0) > performance.now(); }
function touch(key) { state.editing.set(key, performance.now() + 1500); }

function updateControls(snapshot) {
  const engine = snapshot.engine;
  $("#engine-time").textContent = `${snapshot.time.toFixed(1)} s`;
  $("#engine-sources").textContent = `${engine.sourcesInUse} / ${engine.sourcesTotal}`;
  const counts = snapshot.voiceCounts || {};
  $("#engine-voices").textContent =
    `${counts.playing || 0} playing, ${counts.virtual || 0} virtual, ${counts.dormant || 0} dormant`;
  $("#engine-underruns").textContent = String(engine.underruns);
  $("#engine-cpu").textContent = `${engine.updateCPUPercent.toFixed(1)} %`;

  const buses = $("#buses");
  for (const bus of snapshot.buses) {
    let row = buses.querySelector(`[data-bus="${CSS.escape(bus.name)}"]`);
    if (!row) row = buses.appendChild(busRow(bus.name));
    row.dataset.volume = String(bus.volume);
    const meter = $(".meter", row);
    meter.dataset.rms = bus.rmsDB.toFixed(1);
    meter.dataset.peak = bus.peakDB.toFixed(1);
    $(".rms", meter).style.width = `${dbFraction(bus.rmsDB) * 100}%`;
    $(".peak", meter).style.left = `calc(${dbFraction(bus.peakDB) * 100}% - 2px)`;
    $(".db", meter).textContent = dbText(bus.peakDB);
    const volume = $("input.volume", row);
    if (!editingNow(`bus.${bus.name}.volume`)) volume.value = String(bus.volume);
    volume.title = `volume ${bus.volume.toFixed(2)} (heard ${bus.effectiveGain.toFixed(2)})`;
    $("button.mute", row).setAttribute("aria-pressed", String(bus.muted));
    $("button.solo", row).setAttribute("aria-pressed", String(bus.soloed));
  }

  const parameters = $("#parameters");
  if (snapshot.parameters.length) $(".empty", parameters)?.remove();
  for (const parameter of snapshot.parameters) {
    let row = parameters.querySelector(`[data-parameter="${CSS.escape(parameter.name)}"]`);
    if (!row) row = parameters.appendChild(parameterRow(parameter));
    const input = $("input", row);
    if (!editingNow(`parameter.${parameter.name}`)) input.value = String(parameter.value);
    $("output", row).textContent = parameter.current.toFixed(2);
  }

  const snapshots = $("#snapshots");
  if (snapshot.snapshots.length) $(".empty", snapshots)?.remove();
  for (const mix of snapshot.snapshots) {
    let button = snapshots.querySelector(`[data-snapshot="${CSS.escape(mix.name)}"]`);
    if (!button) {
      button = snapshots.appendChild(element("button", { class: "snapshot", "data-snapshot": mix.name }, mix.name));
      button.addEventListener("click", () =>
        set(`snapshot.${mix.name}`, button.getAttribute("aria-pressed") === "true" ? "off" : "on"));
    }
    button.setAttribute("aria-pressed", String(mix.active));
  }

  const music = $("#music");
  music.replaceChildren(...(snapshot.music.length ? snapshot.music.map(musicRow) : [element("p", { class: "empty" }, "none")]));
}

function busRow(name) {
  const row = element("div", { class: "bus", "data-bus": name });
  const label = row.appendChild(element("span", { class: "name", title: name }, name));
  label.style.borderLeft = `3px solid ${busColor(name)}`;
  label.style.paddingLeft = "4px";
  const meter = row.appendChild(element("div", { class: "meter", "data-rms": "-120", "data-peak": "-120" }));
  meter.append(element("div", { class: "rms" }), element("div", { class: "peak" }), element("span", { class: "db" }));
  const volume = row.appendChild(element("input", {
    class: "volume", type: "range", min: "0", max: "1.5", step: "0.01", "aria-label": `${name} volume` }));
  volume.addEventListener("input", () => {
    touch(`bus.${name}.volume`);
    set(`bus.${name}.volume`, Number(volume.value));
  });
  const mute = row.appendChild(element("button", { class: "mute", title: `mute ${name}`, "aria-pressed": "false" }, "M"));
  mute.addEventListener("click", () => set(`bus.${name}.mute`, mute.getAttribute("aria-pressed") === "true" ? "off" : "on"));
  const solo = row.appendChild(element("button", { class: "solo", title: `solo ${name}`, "aria-pressed": "false" }, "S"));
  solo.addEventListener("click", () => set(`bus.${name}.solo`, solo.getAttribute("aria-pressed") === "true" ? "off" : "on"));
  return row;
}

function parameterRow(parameter) {
  const row = element("div", { class: "parameter", "data-parameter": parameter.name });
  row.append(element("label", {}, parameter.name));
  const span = parameter.maximum - parameter.minimum;
  const input = row.appendChild(element("input", {
    type: "range", min: String(parameter.minimum), max: String(parameter.maximum),
    step: String(span > 0 ? span / 100 : 0.01), "aria-label": parameter.name }));
  row.append(element("output"));
  input.addEventListener("input", () => {
    touch(`parameter.${parameter.name}`);
    set(`parameter.${parameter.name}`, Number(input.value));
  });
  return row;
}

function musicRow(player) {
  const row = element("div", { class: "player", "data-player": player.kind });
  row.append(element("span", {}, player.kind), element("span", {}, player.state));
  row.append(element("span", { class: "item" }, player.item || "—"));
  const seconds = Math.max(0, Math.floor(player.time));
  row.append(element("span", {}, `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`));
  return row;
}

// --- drawing -----------------------------------------------------------------------

function schedule() {
  if (state.dirty) return;
  state.dirty = true;
  requestAnimationFrame(() => {
    state.dirty = false;
    drawPlot();
    drawTimeline();
    drawMap();
  });
}

function drawPlot() {
  const canvas = $("#bus-plot");
  const context = canvas.getContext("2d");
  const { width, height } = canvas;
  context.clearRect(0, 0, width, height);
  context.strokeStyle = "#2a313b";
  context.fillStyle = "#8b95a3";
  context.font = "10px system-ui";
  for (let db = 0; db >= FLOOR_DB; db -= 12) {
    const y = (1 - dbFraction(db)) * (height - 1);
    context.beginPath(); context.moveTo(0, y); context.lineTo(width, y); context.stroke();
    context.fillText(`${db}`, 2, Math.max(10, y - 2));
  }
  if (!state.snapshot) return;
  const x = (time) => (time - (state.now - WINDOW)) / WINDOW * width;
  const legend = $("#bus-legend");
  legend.replaceChildren();
  for (const bus of state.snapshot.buses) {
    context.strokeStyle = busColor(bus.name);
    context.lineWidth = 1.5;
    context.beginPath();
    let started = false;
    for (const sample of state.history) {
      const level = sample.levels[bus.name];
      if (level === undefined) continue;
      const y = (1 - dbFraction(level)) * (height - 1);
      if (started) context.lineTo(x(sample.time), y); else context.moveTo(x(sample.time), y);
      started = true;
    }
    context.stroke();
    const key = legend.appendChild(element("span", { "data-legend-bus": bus.name }));
    key.append(element("i"), document.createTextNode(bus.name));
    key.firstChild.style.background = busColor(bus.name);
  }
  context.lineWidth = 1;
}

function drawTimeline() {
  const timeline = $("#timeline");
  const width = Number(timeline.getAttribute("width"));
  const height = Number(timeline.getAttribute("height"));
  const labelWidth = 120, laneHeight = 14, top = 16;
  const plotWidth = width - labelWidth - 4;
  const x = (time) => labelWidth + Math.max(0, (time - (state.now - WINDOW)) / WINDOW * plotWidth);
  const children = [];
  for (let seconds = 0; seconds <= WINDOW; seconds += 5) {
    const at = labelWidth + (1 - seconds / WINDOW) * plotWidth;
    children.push(svg("line", { x1: at, x2: at, y1: top - 4, y2: height, stroke: "#2a313b" }));
    children.push(svg("text", { x: at - 2, y: 10, "text-anchor": "end" }, seconds ? `−${seconds}s` : "now"));
  }
  // The newest voices on top; as many lanes as fit.
  const lanes = [...state.lanes.values()].filter((lane) => lane.segments.length)
    .sort((a, b) => b.segments[0].start - a.segments[0].start)
    .slice(0, Math.floor((height - top) / laneHeight));
  lanes.forEach((lane, index) => {
    const y = top + index * laneHeight;
    const group = svg("g", { class: "lane", "data-voice-id": String(lane.id), "data-voice-name": lane.name,
      "data-voice-state": lane.segments[lane.segments.length - 1].state });
    group.append(svg("text", { x: 2, y: y + 10 }, `${lane.name} #${lane.id}`.slice(0, 22)));
    for (const segment of lane.segments) {
      const start = x(segment.start);
      group.append(svg("rect", {
        class: `seg-${segment.state}`, "data-state": segment.state, x: start, y: y + 2,
        width: Math.max(2, x(segment.end) - start), height: laneHeight - 4 }));
    }
    children.push(group);
  });
  timeline.replaceChildren(...children);
}

function drawMap() {
  const canvas = $("#map");
  const context = canvas.getContext("2d");
  const { width, height } = canvas;
  context.clearRect(0, 0, width, height);
  const snapshot = state.snapshot;
  if (!snapshot) return;
  const listener = snapshot.listener || { position: [0, 0, 0], forward: [0, 0, -1] };
  const placed = snapshot.voices.filter((voice) => Array.isArray(voice.position));
  // Metres from the listener to the edge: the farthest voice, at least 5 m.
  let reach = 5;
  for (const voice of placed) {
    reach = Math.max(reach, Math.hypot(voice.position[0] - listener.position[0], voice.position[2] - listener.position[2]) * 1.15);
  }
  const scale = (Math.min(width, height) / 2 - 12) / reach;
  const cx = width / 2, cy = height / 2;
  context.strokeStyle = "#2a313b";
  for (let ring = 1; ring <= 4; ring++) {
    context.beginPath(); context.arc(cx, cy, (ring / 4) * reach * scale, 0, Math.PI * 2); context.stroke();
  }
  context.fillStyle = "#8b95a3";
  context.font = "10px system-ui";
  context.fillText(`${reach.toFixed(1)} m`, 4, 12);
  for (const voice of placed) {
    const px = cx + (voice.position[0] - listener.position[0]) * scale;
    const py = cy + (voice.position[2] - listener.position[2]) * scale;
    const loudness = dbFraction(voice.gainDB);
    context.globalAlpha = 0.25 + 0.75 * loudness;
    context.fillStyle = getComputedStyle(document.body).getPropertyValue(`--${voice.state}`) || "#3fb950";
    context.beginPath(); context.arc(px, py, 3 + 9 * loudness, 0, Math.PI * 2); context.fill();
    context.globalAlpha = 1;
    context.fillStyle = "#d8dee6";
    context.fillText(`${voice.name} ${dbText(voice.gainDB)}`, px + 8, py + 3);
  }
  // The listener: an arrow pointing where it faces.
  const angle = Math.atan2(listener.forward[2], listener.forward[0]);
  context.save();
  context.translate(cx, cy); context.rotate(angle);
  context.fillStyle = "#ffffff";
  context.beginPath(); context.moveTo(10, 0); context.lineTo(-6, -6); context.lineTo(-3, 0); context.lineTo(-6, 6);
  context.closePath(); context.fill();
  context.restore();
  canvas.dataset.voices = String(placed.length);
}

connect();
