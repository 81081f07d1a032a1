// The item page's media element: seeking once it can seek, and playing
// without an uncaught rejection when the browser refuses to start playback
// (autoplay rules, a format it cannot decode).

// whenReady runs fn once the player knows its duration and can seek.
export function whenReady(player, fn) {
  if (player.readyState >= HTMLMediaElement.HAVE_METADATA) {
    fn();
    return;
  }
  player.addEventListener('loadedmetadata', () => fn(), { once: true });
}

// seek moves the player to t seconds (clamped to the media), and starts
// playback when play is true.
export function seek(player, t, play) {
  if (!Number.isFinite(t) || t < 0) {
    return;
  }
  whenReady(player, () => {
    const d = player.duration;
    player.currentTime = Number.isFinite(d) && d > 0 ? Math.min(t, d) : t;
    if (play) {
      start(player);
    }
  });
}

// start plays; a refusal is the browser's decision, not an error of ours.
export function start(player) {
  const p = player.play();
  if (p && typeof p.catch === 'function') {
    p.catch(() => {});
  }
}

// toggle plays a paused player and pauses a playing one.
export function toggle(player) {
  if (player.paused || player.ended) {
    start(player);
  } else {
    player.pause();
  }
}

// seconds reads a data-* time attribute: a finite number, else NaN.
export function seconds(value) {
  if (value === undefined || value === null || value === '') {
    return NaN;
  }
  const n = Number(value);
  return Number.isFinite(n) ? n : NaN;
}

// plainClick is a click meant to act on the page: not one that opens the
// link elsewhere (a new tab or window, a download).
export function plainClick(ev) {
  return ev.button === 0 && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey && !ev.altKey;
}
