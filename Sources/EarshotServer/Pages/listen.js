// Listen: live transcription from the microphone, partial lines in grey, final lines kept (with "Who spoke", each
// named by the enrolled voice that said it); save as a note.
"use strict";
const $ = (id) => document.getElementById(id);
let session = null, ticker = null, voices = new Map();

function onEvent(name, data) {
  if (name === "partial") $("partial").textContent = data.text;
  if (name === "final") {
    $("partial").textContent = "";
    const line = document.createElement("p");
    line.innerHTML = Earshot.speakerTag(data.speaker, voices) + Earshot.escape(data.text);
    $("lines").appendChild(line);
  }
  if (name === "error") Earshot.showError($("status"), data.error.message);
  if (name === "end") $("status").textContent = "Stopped.";
}

$("start").addEventListener("click", async () => {
  if (session) {
    clearInterval(ticker);
    const ending = session;
    $("start").disabled = true;
    $("status").textContent = "Finishing the last words…";
    await ending.stop();
    $("start").disabled = false;
    $("speakers").disabled = false;
    $("start").textContent = "● Start listening";
    $("start").classList.remove("recording");
    $("level").value = 0;
    $("save").disabled = ending.chunks.length === 0;
    $("save").onclick = () => save(ending);
    session = null;
    return;
  }
  session = new LiveSession("transcribe", $("speakers").checked ? { speakers: true } : {});
  try {
    await session.start(onEvent, (level) => { $("level").value = level; });
  } catch (error) {
    session = null;
    Earshot.showError($("status"), error.message);
    return;
  }
  $("lines").innerHTML = "";
  voices = new Map();
  $("speakers").disabled = true;
  $("status").textContent = "Listening…";
  $("start").textContent = "■ Stop";
  $("start").classList.add("recording");
  $("save").disabled = true;
  ticker = setInterval(() => { $("timer").textContent = Earshot.clock(session && session.microphone ? session.microphone.seconds : 0); }, 250);
});

async function save(ended) {
  const form = new FormData();
  form.append("file", Earshot.wav(ended.chunks), `live-${new Date().toISOString().replaceAll(":", "-").slice(0, 19)}.wav`);
  try {
    const note = await Earshot.api("/api/notes", { method: "POST", body: form });
    $("status").innerHTML = `Saved as <a href="/notes#note-${note.id}">note ${note.id}</a>.`;
    $("save").disabled = true;
  } catch (error) {
    Earshot.showError($("status"), error.message);
  }
}
