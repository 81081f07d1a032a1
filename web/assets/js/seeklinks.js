// Links to a time of the item's player outside the timeline and the
// transcript: the filmstrip's key frames and the summary's quality-control
// moments. Each is a link to ?t= (the page at that time without script);
// here a click seeks in place, and the key frame being played is marked.

import { plainClick, seconds, seek } from './player.js';

export function setupSeekLinks(links, player) {
  const frames = links.filter((a) => a.classList.contains('frame'));
  for (const a of links) {
    a.addEventListener('click', (ev) => {
      const t = seconds(a.dataset.t);
      if (!plainClick(ev) || !Number.isFinite(t)) {
        return;
      }
      ev.preventDefault();
      seek(player, t, false);
    });
  }
  if (frames.length === 0) {
    return;
  }
  // The frame shown is the last one at or before the playhead.
  const mark = () => {
    let current = null;
    for (const a of frames) {
      if (seconds(a.dataset.t) <= player.currentTime + 0.05) {
        current = a;
      }
    }
    for (const a of frames) {
      if (a === current) {
        a.setAttribute('aria-current', 'true');
      } else {
        a.removeAttribute('aria-current');
      }
    }
  };
  player.addEventListener('timeupdate', mark);
  player.addEventListener('seeked', mark);
}
