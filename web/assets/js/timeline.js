// The timeline under the player: lanes of markers placed along the media's
// duration, a playhead that follows playback, and previous/next hit
// buttons. The server renders every marker as a link to ?t=..., so the
// page works without this script; here a click seeks in place instead,
// and tells the page which span the marker stands for (the event
// 'timeline:marker', which the "Add to a compilation" form takes as its
// moment).

import { plainClick, seconds, seek } from './player.js';

// Below this distance (seconds) a marker counts as where the player is,
// so that "previous" from a marker just sought to goes to the one before.
const SAME_TIME = 0.25;

export function setupTimeline(section, player) {
  const markers = Array.from(section.querySelectorAll('.lane a.marker'))
    .map((el) => ({ el, t: seconds(el.dataset.t), end: seconds(el.dataset.end) }))
    .filter((m) => Number.isFinite(m.t));
  const playhead = section.querySelector('.playhead');
  const prev = section.querySelector('#prev-hit');
  const next = section.querySelector('#next-hit');

  const duration = () => {
    const d = seconds(section.dataset.duration);
    if (d > 0) {
      return d;
    }
    return Number.isFinite(player.duration) && player.duration > 0 ? player.duration : NaN;
  };

  const pct = (t, d) => `${Math.max(0, Math.min(100, (t / d) * 100))}%`;

  const place = () => {
    const d = duration();
    if (!(d > 0)) {
      return;
    }
    for (const m of markers) {
      m.el.style.left = pct(m.t, d);
      if (m.end > m.t) {
        m.el.style.width = pct(Math.min(m.end, d) - m.t, d);
      }
    }
    section.classList.add('placed');
  };

  const movePlayhead = () => {
    const d = duration();
    if (!playhead || !(d > 0)) {
      return;
    }
    playhead.style.left = pct(player.currentTime, d);
    playhead.hidden = false;
  };

  // Previous/next move between the current search's hits, or between all
  // markers when the page has no hits lane.
  const hitLane = section.querySelector('.lane[data-lane="hits"]');
  const hitTimes = (hitLane && hitLane.querySelector('a.marker') ? markers.filter((m) => hitLane.contains(m.el)) : markers)
    .map((m) => m.t);
  const stops = Array.from(new Set(hitTimes)).sort((a, b) => a - b);
  const allStops = Array.from(new Set(markers.map((m) => m.t))).sort((a, b) => a - b);

  const after = (list, t) => list.find((x) => x > t + SAME_TIME);
  const before = (list, t) => {
    for (let i = list.length - 1; i >= 0; i -= 1) {
      if (list[i] < t - SAME_TIME) {
        return list[i];
      }
    }
    return undefined;
  };

  const updateButtons = () => {
    if (prev) {
      prev.disabled = before(stops, player.currentTime) === undefined;
    }
    if (next) {
      next.disabled = after(stops, player.currentTime) === undefined;
    }
  };

  if (stops.length > 0) {
    for (const b of [prev, next]) {
      if (b) {
        b.hidden = false;
      }
    }
    if (prev) {
      prev.addEventListener('click', () => seek(player, before(stops, player.currentTime), true));
    }
    if (next) {
      next.addEventListener('click', () => seek(player, after(stops, player.currentTime), true));
    }
  }

  // span is what a marker stands for: its start, its end (NaN for a single
  // time), its lane and its label. A shot (a key frame) runs until the
  // next shot, the last one until the end of the media; captions, speech
  // and QC events carry their end (data-end).
  const span = (el) => {
    const t = seconds(el.dataset.t);
    let end = seconds(el.dataset.end);
    const lane = el.closest('.lane');
    const name = lane ? lane.dataset.lane : '';
    if (name === 'shots' && !(end > t)) {
      const next = markers.find((m) => lane.contains(m.el) && m.t > t);
      end = next ? next.t : duration();
    }
    const label = el.querySelector('.marker-label');
    return { t, end: end > t ? end : NaN, lane: name, label: label ? label.textContent.trim() : '' };
  };

  section.addEventListener('click', (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest('a.marker') : null;
    if (!a || !section.contains(a) || !plainClick(ev)) {
      return;
    }
    const t = seconds(a.dataset.t);
    if (!Number.isFinite(t)) {
      return;
    }
    ev.preventDefault();
    seek(player, t, true);
    a.dispatchEvent(new CustomEvent('timeline:marker', { bubbles: true, detail: span(a) }));
  });

  // The playhead follows playback smoothly while playing, and jumps on
  // seeks while paused.
  let frame = 0;
  const tick = () => {
    movePlayhead();
    frame = player.paused ? 0 : requestAnimationFrame(tick);
  };
  player.addEventListener('play', () => {
    if (!frame) {
      frame = requestAnimationFrame(tick);
    }
  });
  for (const type of ['timeupdate', 'seeked', 'pause']) {
    player.addEventListener(type, () => {
      movePlayhead();
      updateButtons();
    });
  }
  for (const type of ['loadedmetadata', 'durationchange']) {
    player.addEventListener(type, () => {
      place();
      movePlayhead();
    });
  }
  place();
  movePlayhead();
  updateButtons();

  return {
    // step moves to the previous (-1) or next (+1) marker of any lane.
    step(dir) {
      const t = dir < 0 ? before(allStops, player.currentTime) : after(allStops, player.currentTime);
      if (t !== undefined) {
        seek(player, t, false);
      }
      return t;
    },
  };
}
