// Shared by every page: the API helper, the microphone (16 kHz mono float samples), WAV encoding, live sessions.
"use strict";

const Earshot = {
  // fetch with the API's JSON errors turned into exceptions carrying the server's message
  async api(path, options = {}) {
    const response = await fetch(path, { credentials: "same-origin", ...options });
    if (!response.ok) {
      let message = `${response.status} ${response.statusText}`;
      try { message = (await response.json()).error.message; } catch (_) { /* not JSON */ }
      throw new Error(message);
    }
    const type = response.headers.get("Content-Type") || "";
    if (response.status === 204) return null;
    return type.startsWith("application/json") ? response.json() : response.text();
  },

  // reads a text/event-stream response (a POST that streams progress) and calls onEvent(name, data)
  async stream(path, body, onEvent) {
    const headers = { Accept: "text/event-stream" };
    if (typeof body === "string") headers["Content-Type"] = "application/json";  // a JSON body; forms set their own
    const response = await fetch(path, { method: "POST", body, headers, credentials: "same-origin" });
    if (!response.ok) {
      let message = `${response.status}`;
      try { message = (await response.json()).error.message; } catch (_) { /* not JSON */ }
      throw new Error(message);
    }
    if (!(response.headers.get("Content-Type") || "").startsWith("text/event-stream")) return response.json();
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "", result = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
        let name = "message", data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) name = line.slice(7);
          if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (!data) continue;
        const parsed = JSON.parse(data);
        if (name === "error") throw new Error(parsed.error.message);
        if (name === "done") result = parsed;
        onEvent(name, parsed);
      }
    }
    return result;
  },

  escape(text) {
    const div = document.createElement("div");
    div.textContent = text;
    return div.innerHTML;
  },

  // who said it, one colour per voice in order of appearance (`order`: a Map kept per transcript; classes, as the
  // page's policy allows no inline styles)
  speakerTag(speaker, order) {
    if (!speaker) return "";
    if (!order.has(speaker)) order.set(speaker, order.size);
    return `<strong class="speaker voice-${order.get(speaker) % 6}">${Earshot.escape(speaker)}</strong> `;
  },

  // search snippets mark matches with two private-use characters: escape first, then mark
  highlight(snippet) {
    return Earshot.escape(snippet).replaceAll("\uE000", "<mark>").replaceAll("\uE001", "</mark>");
  },

  // a message in an element's error style (as text: a message never becomes markup)
  showError(element, message) {
    element.innerHTML = `<span class="error">${Earshot.escape(message)}</span>`;
  },

  // a list of labelled bars: items of { label, value (0..1), text }
  bars(list, items) {
    list.innerHTML = items.map((item) => `<li><span>${Earshot.escape(item.label)}</span>
      <span class="bar"><span></span></span><span>${Earshot.escape(item.text)}</span></li>`).join("");
    list.querySelectorAll(".bar span").forEach((bar, i) => { bar.style.width = `${Math.round(items[i].value * 100)}%`; });
  },

  clock(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  },

  // 16-bit PCM WAV of 16 kHz mono float samples
  wav(chunks, rate = 16000) {
    const count = chunks.reduce((n, c) => n + c.length, 0);
    const view = new DataView(new ArrayBuffer(44 + count * 2));
    const text = (offset, s) => { for (let i = 0; i < s.length; i++) view.setUint8(offset + i, s.charCodeAt(i)); };
    text(0, "RIFF"); view.setUint32(4, 36 + count * 2, true); text(8, "WAVE"); text(12, "fmt ");
    view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
    view.setUint32(24, rate, true); view.setUint32(28, rate * 2, true); view.setUint16(32, 2, true); view.setUint16(34, 16, true);
    text(36, "data"); view.setUint32(40, count * 2, true);
    let offset = 44;
    for (const chunk of chunks) for (const x of chunk) { view.setInt16(offset, Math.max(-1, Math.min(1, x)) * 32767, true); offset += 2; }
    return new Blob([view], { type: "audio/wav" });
  },

  download(blob, name) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
  },
};

// The microphone at 16 kHz: onChunk gets ~125 ms of samples at a time, onLevel the block's loudness (0..1).
class Microphone {
  async start(onChunk, onLevel = () => {}) {
    this.stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: false, noiseSuppression: false, autoGainControl: false } });
    this.context = new AudioContext({ sampleRate: 16000 });
    await this.context.audioWorklet.addModule("/assets/capture-worklet.js");
    const source = this.context.createMediaStreamSource(this.stream);
    this.node = new AudioWorkletNode(this.context, "earshot-capture");
    let pending = [], size = 0;
    this.node.port.onmessage = (event) => {
      pending.push(event.data); size += event.data.length;
      if (size >= 2000) {  // an eighth of a second: the server hears the end of speech sooner
        const chunk = new Float32Array(size);
        let offset = 0;
        for (const block of pending) { chunk.set(block, offset); offset += block.length; }
        pending = []; size = 0;
        let peak = 0;
        for (const x of chunk) peak = Math.max(peak, Math.abs(x));
        onLevel(peak);
        onChunk(chunk);
      }
    };
    source.connect(this.node);
    this.started = performance.now();
  }

  get seconds() { return this.started ? (performance.now() - this.started) / 1000 : 0; }

  async stop() {
    if (this.stream) this.stream.getTracks().forEach((track) => track.stop());
    if (this.context) await this.context.close();
    this.stream = this.context = this.node = null;
    this.started = 0;
  }

  // records `seconds` of audio and returns it as a WAV blob; onLevel hears each block's loudness meanwhile
  static async clip(seconds, onProgress = () => {}, onLevel = () => {}) {
    const microphone = new Microphone();
    const chunks = [];
    await microphone.start((chunk) => { chunks.push(chunk); onProgress(Math.min(1, microphone.seconds / seconds)); }, onLevel);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await microphone.stop();
    return Earshot.wav(chunks);
  }
}

// A live session: the microphone's audio goes to the server, its events come back.
class LiveSession {
  constructor(kind, options = {}) { this.kind = kind; this.options = options; this.chunks = []; }

  async start(onEvent, onLevel) {
    const opened = await Earshot.api("/api/live", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ kind: this.kind, ...this.options }),
    });
    this.opened = opened;
    this.events = new EventSource(opened.events);
    this.ended = new Promise((resolve) => { this.end = resolve; });
    for (const name of ["partial", "final", "sound", "voice", "silence", "error", "end"]) {
      this.events.addEventListener(name, (event) => {
        const data = JSON.parse(event.data);
        if (name === "end" || name === "error") this.events.close();
        onEvent(name, data);
        if (name === "end" || name === "error") this.end();
      });
    }
    // audio goes out one POST at a time, in order
    let sending = Promise.resolve();
    this.microphone = new Microphone();
    await this.microphone.start((chunk) => {
      this.chunks.push(chunk);
      sending = sending.then(() => fetch(opened.audio, { method: "POST", body: chunk, headers: { "Content-Type": "application/octet-stream" } }))
        .catch(() => {});
    }, onLevel);
    this.sending = () => sending;
  }

  async stop() {
    if (!this.microphone) return;
    await this.microphone.stop();
    this.microphone = null;
    await this.sending();
    // the server sends the last results, then "end": stopped means they are in (or 15 s went by without them)
    await fetch(`/api/live/${this.opened.id}`, { method: "DELETE" }).catch(() => {});
    await Promise.race([this.ended, new Promise((resolve) => setTimeout(resolve, 15000))]);
  }
}

// A button that starts and stops a live session: `idle` is its label at rest; `open()` makes the session,
// `onEvent` gets its events; failures are shown in `status`.
class LiveButton {
  constructor(button, idle, status, open, onEvent) {
    this.button = button; this.idle = idle; this.status = status; this.open = open; this.onEvent = onEvent;
    button.addEventListener("click", () => (this.session ? this.stop() : this.start()));
  }

  async start() {
    const session = this.open();
    if (!session) return;
    this.session = session;
    try {
      await session.start((name, data) => {
        if (name === "error") Earshot.showError(this.status, data.error.message);
        this.onEvent(name, data);
      });
    } catch (error) {
      this.session = null;
      Earshot.showError(this.status, error.message);
      return;
    }
    this.button.textContent = "■ Stop";
    this.button.classList.add("recording");
  }

  async stop() {
    const session = this.session;
    this.session = null;
    await session.stop();
    this.button.textContent = this.idle;
    this.button.classList.remove("recording");
  }
}

// marks the current page in the navigation
document.addEventListener("DOMContentLoaded", () => {
  const page = location.pathname === "/" ? "/notes" : location.pathname;
  for (const link of document.querySelectorAll("nav a[href]")) {
    if (link.getAttribute("href") === page) link.setAttribute("aria-current", "page");
  }
});
