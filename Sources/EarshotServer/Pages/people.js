// People: everyone heard in the notes, their notes, talk time and open action items; name a voice once, hear it.
"use strict";
const $ = (id) => document.getElementById(id);
let stopAt = null;  // when the voice being played should stop (seconds into its note)

function shown(person) { return person.name || `Voice ${person.id}`; }

function minutes(seconds) {
  return seconds < 60 ? `${Math.round(seconds)} s` : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
}

async function refresh() {
  try {
    const [people, open] = await Promise.all([Earshot.api("/api/people"), Earshot.api("/api/actions?open=true")]);
    $("nobody").hidden = people.length > 0;
    $("people").innerHTML = people.map((p) => {
      const items = open.filter((a) => a.action.person === p.id);
      // "not them": a voice linked to the wrong person, or named wrongly in one note, split off as someone else
      const splittable = p.name || p.notes.length > 1;
      const notes = p.notes.map((n) => `<a href="/notes#note-${n}">note ${n}</a>${splittable
        ? ` <button type="button" class="link" data-split="${p.id}" data-note="${n}" aria-label="Not ${Earshot.escape(shown(p))} in note ${n}" title="Not ${Earshot.escape(shown(p))} in note ${n}">not them?</button>` : ""}`).join(", ");
      const heard = p.last_heard ? ` · last heard ${new Date(p.last_heard).toLocaleDateString()}` : "";
      return `<li id="person-${p.id}" class="person">
        <div class="row">
          <h3 class="grow">${Earshot.escape(shown(p))}</h3>
          <button type="button" class="secondary" data-play="${p.id}" aria-label="Play a few seconds of ${Earshot.escape(shown(p))}'s voice">▶ Voice</button>
        </div>
        <p class="muted">${p.notes.length} note${p.notes.length === 1 ? "" : "s"} (${notes}) · ${minutes(p.seconds)} of speech${heard}</p>
        ${items.length ? `<ul class="open-items">${items.map((a) => `<li>${Earshot.escape(a.action.text)}
          <a href="/notes#note-${a.note}">note ${a.note}</a></li>`).join("")}</ul>` : ""}
        <form class="row name-person" data-id="${p.id}">
          <label for="name-${p.id}">${p.name ? "Rename" : "Who is this?"}</label>
          <input id="name-${p.id}" type="text" class="grow" maxlength="80" placeholder="a name, e.g. Ruth" required>
          <label class="muted"><input type="checkbox" data-enroll> and recognise them live</label>
          <button type="submit">${p.name ? "Rename" : "Name"}</button>
          <button type="button" class="danger" data-forget="${p.id}">Forget…</button>
        </form>
      </li>`;
    }).join("");
  } catch (error) {
    Earshot.showError($("people-status"), error.message);
  }
}

$("people").addEventListener("submit", async (event) => {
  const form = event.target.closest("form.name-person");
  if (!form) return;
  event.preventDefault();
  const name = form.querySelector("input[type=text]").value;
  const enroll = form.querySelector("input[data-enroll]").checked;
  if (enroll) $("people-status").textContent = `Enrolling ${name}…`;
  try {
    const changed = await Earshot.api(`/api/people/${form.dataset.id}`, { method: "PATCH",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name, enroll }) });
    $("people-status").textContent = changed.notes.length
      ? `${changed.person.name} is named in note${changed.notes.length === 1 ? "" : "s"} ${changed.notes.join(", ")}; their summaries are being written again.`
      : `${changed.person.name}: no note's labels changed.`;
    if (enroll) $("people-status").textContent += ` Enrolled: live lines will name ${changed.person.name} too.`;
    await refresh();
  } catch (error) {
    Earshot.showError($("people-status"), error.message);
  }
});

// forgetting cannot be undone: asked twice, the second time whether what they said goes too
async function forget(id) {
  const person = await Earshot.api(`/api/people/${id}`);
  if (!confirm(`Forget ${shown(person)}? Their voiceprints and name are deleted from ${person.notes.length} note(s). This cannot be undone.`)) return;
  const redact = confirm(`Also remove everything ${shown(person)} said? Their speech is silenced in the recordings and replaced by [removed] in the transcripts.`);
  const forgotten = await Earshot.api(`/api/people/${id}?redact=${redact}`, { method: "DELETE" });
  $("people-status").textContent = `Forgotten${redact ? `, ${Math.round(forgotten.silenced_seconds)} s of speech removed` : ""}.`;
  await refresh();
}

// a few seconds of the voice: the first stretch they speak in their longest appearance
$("people").addEventListener("click", async (event) => {
  const forgetting = event.target.closest("button[data-forget]");
  if (forgetting) {
    try { await forget(forgetting.dataset.forget); } catch (error) { Earshot.showError($("people-status"), error.message); }
    return;
  }
  const splitting = event.target.closest("button[data-split]");
  if (splitting) {
    try {
      const changed = await Earshot.api(`/api/people/${splitting.dataset.split}/split`, { method: "POST",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify({ note: Number(splitting.dataset.note) }) });
      $("people-status").textContent = `The voice in note ${splitting.dataset.note} is now ${shown(changed.person)}.`;
      await refresh();
    } catch (error) {
      Earshot.showError($("people-status"), error.message);
    }
    return;
  }
  const button = event.target.closest("button[data-play]");
  if (!button) return;
  try {
    const person = await Earshot.api(`/api/people/${button.dataset.play}`);
    const longest = person.appearances.reduce((a, b) => (b.seconds > a.seconds ? b : a));
    const note = await Earshot.api(`/api/notes/${longest.note}`);
    const labelled = note.segments.some((s) => s.speaker);
    const first = note.segments.find((s) => !labelled || s.speaker === longest.label) || note.segments[0];
    const player = $("voice-player");
    player.src = `/api/notes/${longest.note}/audio`;
    await new Promise((resolve) => { player.onloadedmetadata = resolve; });
    player.currentTime = first ? first.start : 0;
    stopAt = player.currentTime + 4;
    await player.play();
    $("people-status").textContent = `Playing ${shown(person)} in note ${longest.note}.`;
  } catch (error) {
    Earshot.showError($("people-status"), error.message);
  }
});
$("voice-player").addEventListener("timeupdate", () => {
  if (stopAt !== null && $("voice-player").currentTime >= stopAt) { $("voice-player").pause(); stopAt = null; }
});

refresh();
