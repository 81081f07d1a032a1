// A recording's waveform seeks its player where it is clicked, and a line
// over it follows playback. A click from the keyboard (Enter on the link)
// and one that opens the link elsewhere keep the link's own meaning; the
// player's controls are the keyboard's way to seek.

import { plainClick, seek } from './player.js';

export function setupWaveform(link, player) {
  const img = link.querySelector('img');
  if (!img) {
    return;
  }
  const head = document.createElement('span');
  head.className = 'playhead';
  head.hidden = true;
  link.append(head);

  link.addEventListener('click', (ev) => {
    const d = player.duration;
    if (ev.detail === 0 || !plainClick(ev) || !Number.isFinite(d) || d <= 0) {
      return;
    }
    ev.preventDefault();
    const r = img.getBoundingClientRect();
    const at = Math.min(Math.max((ev.clientX - r.left) / r.width, 0), 1);
    seek(player, at * d, true);
  });

  const follow = () => {
    const d = player.duration;
    if (!Number.isFinite(d) || d <= 0) {
      return;
    }
    head.style.left = `${(100 * Math.min(player.currentTime / d, 1)).toFixed(2)}%`;
    head.hidden = false;
  };
  for (const ev of ['timeupdate', 'seeked', 'loadedmetadata']) {
    player.addEventListener(ev, follow);
  }
}
