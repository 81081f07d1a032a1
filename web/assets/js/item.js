// The item page: starts the player at ?t= (data-start), and wires the
// timeline, the transcript, the filmstrip and the keyboard to it; shows
// the copy buttons beside checksums. Pages without a player (images,
// documents) and players without a timeline or transcript are left as the
// server rendered them. No library: plain DOM.

import { seconds, seek, toggle } from './player.js';
import { setupTimeline } from './timeline.js';
import { setupTranscript } from './transcript.js';
import { setupWaveform } from './waveform.js';
import { setupSeekLinks } from './seeklinks.js';
import { setupCopyButtons } from './copy.js';

// typing reports a key pressed where keys mean text or belong to the
// control: form fields, editable content, buttons (space presses them),
// the player itself (its own controls take space and arrows).
function typing(target, player) {
  if (!(target instanceof Element)) {
    return false;
  }
  if (target === player || target.isContentEditable) {
    return true;
  }
  return target.closest('input, textarea, select, button, summary, [contenteditable]') !== null;
}

function init() {
  const main = document.getElementById('item');
  if (!main) {
    return;
  }
  setupCopyButtons(main, document.getElementById('copy-status'));
  const player = document.getElementById('player');
  if (!(player instanceof HTMLMediaElement)) {
    return;
  }
  setupSeekLinks(Array.from(main.querySelectorAll('.filmstrip a.frame[data-t], .summary a[data-t]')), player);

  const startAt = seconds(main.dataset.start);
  if (startAt > 0) {
    seek(player, startAt, false);
  }

  const timelineSection = document.getElementById('timeline');
  const timeline = timelineSection ? setupTimeline(timelineSection, player) : null;
  const transcriptSection = document.getElementById('transcript');
  if (transcriptSection) {
    setupTranscript(transcriptSection, player);
  }
  const waveform = document.querySelector('.preview a.waveform');
  if (waveform) {
    setupWaveform(waveform, player);
  }

  document.addEventListener('keydown', (ev) => {
    if (ev.defaultPrevented || ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target, player)) {
      return;
    }
    if (ev.key === ' ' || ev.key === 'Spacebar') {
      ev.preventDefault();
      toggle(player);
    } else if (timeline && (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight')) {
      ev.preventDefault();
      timeline.step(ev.key === 'ArrowLeft' ? -1 : 1);
    }
  });
}

init();
