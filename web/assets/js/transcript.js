// The transcript beside the player: the cue being spoken is marked
// aria-current and kept in view while the media plays, until the person
// scrolls the list themselves (a click on a cue resumes following); a
// filter box hides the cues that do not contain every typed word.

import { plainClick, seconds, seek } from './player.js';

// scroller is the element that scrolls the cues: the nearest ancestor of
// list (itself included, up to the section) whose content overflows it
// and whose style lets it scroll. None: the list is shown whole and the
// page is never scrolled for it during playback.
function scroller(list, section) {
  for (let el = list; el && el !== section.parentElement; el = el.parentElement) {
    const oy = getComputedStyle(el).overflowY;
    if ((oy === 'auto' || oy === 'scroll') && el.scrollHeight > el.clientHeight) {
      return el;
    }
  }
  return null;
}

export function setupTranscript(section, player) {
  const list = section.querySelector('.cues');
  if (!list) {
    return;
  }
  const cues = Array.from(list.querySelectorAll('a.cue'))
    .map((el) => ({
      el,
      item: el.closest('li') || el,
      t: seconds(el.dataset.t),
      end: seconds(el.dataset.end),
      text: ((el.querySelector('.cue-text') || el).textContent || '').toLowerCase(),
    }))
    .filter((c) => Number.isFinite(c.t))
    .sort((a, b) => a.t - b.t);

  let current = null;
  let following = true;
  let expectedTop = null; // where our own last scroll put the list

  // active is the last cue started at or before t, while it lasts (until
  // its end, or the next cue when it has none).
  const active = (t) => {
    let lo = 0;
    let hi = cues.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cues[mid].t <= t) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found < 0) {
      return null;
    }
    const c = cues[found];
    return Number.isFinite(c.end) && c.end > c.t && t >= c.end ? null : c;
  };

  const reveal = (c) => {
    const box = scroller(list, section);
    if (!box || c.item.hidden) {
      return;
    }
    const boxRect = box.getBoundingClientRect();
    const r = c.item.getBoundingClientRect();
    if (r.top >= boxRect.top && r.bottom <= boxRect.bottom) {
      return;
    }
    // Centre the cue in the list, leaving the page where it is.
    const top = Math.max(0, box.scrollTop + (r.top - boxRect.top) - (box.clientHeight - r.height) / 2);
    box.scrollTop = top;
    expectedTop = box.scrollTop; // as the browser clamped and rounded it
  };

  const update = () => {
    const c = active(player.currentTime);
    if (c === current) {
      return;
    }
    if (current) {
      current.el.removeAttribute('aria-current');
    }
    current = c;
    if (c) {
      c.el.setAttribute('aria-current', 'true');
      if (following) {
        reveal(c);
      }
    }
  };

  // A scroll that is not ours is the person reading elsewhere in the list.
  // The listener is on the capture phase of the section, so it hears the
  // scrolling element whichever it is.
  section.addEventListener(
    'scroll',
    (ev) => {
      const box = ev.target;
      if (!(box instanceof Element)) {
        return;
      }
      if (expectedTop !== null && Math.abs(box.scrollTop - expectedTop) <= 2) {
        expectedTop = null;
        return;
      }
      expectedTop = null;
      following = false;
    },
    true,
  );

  list.addEventListener('click', (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest('a.cue') : null;
    if (!a || !plainClick(ev)) {
      return;
    }
    const t = seconds(a.dataset.t);
    if (!Number.isFinite(t)) {
      return;
    }
    ev.preventDefault();
    following = true;
    seek(player, t, true);
  });

  const filter = section.querySelector('#transcript-filter');
  if (filter) {
    const apply = () => {
      const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      for (const c of cues) {
        c.item.hidden = !words.every((w) => c.text.includes(w));
      }
    };
    filter.addEventListener('input', apply);
    // Enter in the box filters; it never submits a surrounding form.
    filter.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        ev.preventDefault();
        apply();
      }
    });
    apply();
  }

  for (const type of ['timeupdate', 'seeked']) {
    player.addEventListener(type, update);
  }
  update();
}
