// The console's only script: forms that stay on the page, and the chat's event stream.
"use strict";
(function () {
  const csrfMeta = document.querySelector('meta[name="csrf"]');
  const csrf = csrfMeta ? csrfMeta.content : "";
  const chat = document.getElementById("chat");
  if (!chat) return;
  const list = document.getElementById("messages");
  const typing = document.getElementById("typing");
  const problem = document.getElementById("send-problem");

  function upsert(message) {
    let item = list.querySelector('[data-id="' + CSS.escape(message.id) + '"]');
    if (!item) {
      item = document.createElement("li");
      item.dataset.id = message.id;
      item.className = "msg " + message.role;
      list.appendChild(item);
    }
    // the server's rendering of the markdown: raw HTML in the text is escaped there
    item.innerHTML = message.html;
    item.scrollIntoView({block: "end"});
  }

  function showMode(mode) {
    const box = document.getElementById("mode");
    document.getElementById("mode-otr").hidden = !mode.otr;
    const tier = document.getElementById("mode-tier");
    tier.hidden = !mode.tier;
    tier.textContent = mode.tier ? "Tier " + mode.tier : "";
    box.hidden = !mode.otr && !mode.tier;
    const toggle = document.getElementById("otr-toggle");
    toggle.setAttribute("aria-pressed", mode.otr ? "true" : "false");
    toggle.textContent = mode.otr ? "Turn Off The Record off" : "Go Off The Record";
    toggle.form.querySelector('input[name="text"]').value = mode.otr ? "/otr off" : "/otr on";
    document.getElementById("tier").value = "/tier " + mode.current_tier;
  }

  const events = new EventSource(chat.dataset.events);
  events.addEventListener("msg", (e) => upsert(JSON.parse(e.data)));
  events.addEventListener("typing", (e) => { typing.hidden = !JSON.parse(e.data).on; });
  events.addEventListener("done", () => { typing.hidden = true; });
  events.addEventListener("mode", (e) => showMode(JSON.parse(e.data)));

  for (const form of document.querySelectorAll("form.chat-form")) {
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const body = new FormData(form);
      const area = form.querySelector("textarea");
      const files = form.querySelector('input[type="file"]');
      const typed = area ? area.value : "";
      if (form.id === "send") {
        if (voice) body.append("voice", voice, "voice.webm");
        const chosen = files ? files.files.length : 0;
        if (!typed.trim() && !chosen && !voice) return;  // nothing to send
      }
      if (area) area.value = "";
      problem.hidden = true;
      const response = await fetch(location.pathname, {
        method: "POST", body: body, headers: {"X-CSRF-Token": csrf}, credentials: "same-origin",
      }).catch(() => null);
      if (!response || !response.ok) {  // nothing was sent: give the text back, say why
        if (area && !area.value) area.value = typed;
        // a refusal with its reason (a file over its cap, "/persona" with files)
        const said = response && [413, 422].includes(response.status)
          ? await response.text() : "";
        problem.textContent = response && response.status === 403
          ? "Not sent: you are signed out. Sign in again (your text is still here)."
          : said ? "Not sent: " + said
          : "Not sent: personad did not answer. Try again (your text is still here).";
        problem.hidden = false;
        return;
      }
      if (files) files.value = "";
      if (form.id === "send") setVoice(null);
      if (response.status === 200) {  // "/persona NAME": that persona's own conversation
        const answer = await response.json();
        if (answer.location) location.assign(answer.location);
      }
    });
  }
  // a voice note recorded in the page, sent with the next message (or on its own)
  let voice = null;
  const record = document.getElementById("record");
  const recording = document.getElementById("recording");
  function setVoice(blob) {
    voice = blob;
    recording.textContent = blob ? "Voice note ready: Send sends it." : "";
  }
  if (record && navigator.mediaDevices && window.MediaRecorder) {
    record.hidden = false;
    let recorder = null;
    record.addEventListener("click", async () => {
      if (recorder) { recorder.stop(); return; }
      let stream;
      try {
        stream = await navigator.mediaDevices.getUserMedia({audio: true});
      } catch (err) {
        recording.textContent = "The browser did not allow the microphone.";
        return;
      }
      const pieces = [];
      recorder = new MediaRecorder(stream);
      recorder.addEventListener("dataavailable", (e) => pieces.push(e.data));
      recorder.addEventListener("stop", () => {
        stream.getTracks().forEach((track) => track.stop());
        setVoice(new Blob(pieces, {type: recorder.mimeType || "audio/webm"}));
        recorder = null;
        record.setAttribute("aria-pressed", "false");
        record.textContent = "Record a voice note";
      });
      recorder.start();
      record.setAttribute("aria-pressed", "true");
      record.textContent = "Stop recording";
      recording.textContent = "Recording…";
    });
  }
  const area = document.getElementById("text");
  area.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      area.form.requestSubmit();
    }
  });
})();
