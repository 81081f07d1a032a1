// Compilations: on the item page, "Add to a compilation" (the whole item,
// or a moment whose in and out points come from the player or from a
// marker chosen on the timeline); on the list,
// create, clone and delete; on a compilation's page, reorder its entries
// (drag and drop, or the Move up / Move down buttons), remove one, and
// play them in order. Every change goes through the api.

import { api, announce, formJSON, showProblems, clearProblems } from './api.js';
import { seconds, start } from './player.js';

const enc = encodeURIComponent;

// --- the item page -------------------------------------------------------

// markerNoun names what a timeline marker stands for, by its lane.
const laneNouns = {
  shots: 'the shot', captions: 'the caption', speech: 'the speech', faces: 'the face', ocr: 'the text on screen',
  tags: 'the tag', hits: 'the search hit', comments: 'the comment',
};

function markerNoun(m) {
  if (m.lane === 'qc' && m.label) {
    return `the ${m.label.toLowerCase()} event`;
  }
  return laneNouns[m.lane] || 'the marker';
}

// clock writes seconds as 0:12 or 1:02:03 (as comments.js does; not
// imported from it: the page loads comments.js under its versioned URL, so
// an import would run it a second time).
function clock(t) {
  const s = Math.max(0, Math.floor(t));
  const two = (n) => String(n).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}

// round keeps two decimals, the step of the in and out inputs.
const round = (t) => Math.round(t * 100) / 100;

function setupAdd(form, itemId) {
  const p = document.getElementById('player');
  const player = p instanceof HTMLMediaElement ? p : null;
  const points = form.querySelector('#moment-points');
  const inInput = form.querySelector('#add-in');
  const outInput = form.querySelector('#add-out');
  const moment = () => {
    const r = form.querySelector('input[name="what"]:checked');
    return r !== null && r.value === 'moment';
  };
  const show = () => {
    if (points) {
      points.hidden = !moment();
    }
  };
  form.addEventListener('change', show);
  show();
  const now = () => (player ? Math.round(player.currentTime * 100) / 100 : 0);
  const setIn = form.querySelector('#set-in');
  const setOut = form.querySelector('#set-out');
  if (setIn) {
    setIn.addEventListener('click', () => {
      inInput.value = String(now());
      announce(`In point ${inInput.value} seconds`);
    });
  }
  if (setOut) {
    setOut.addEventListener('click', () => {
      outInput.value = String(now());
      announce(`Out point ${outInput.value} seconds`);
    });
  }
  const note = document.getElementById('marker-moment');
  const forget = () => {
    if (note && note.dataset.set) {
      note.replaceChildren(note.dataset.hint || '');
      delete note.dataset.set;
    }
  };
  for (const el of [inInput, outInput]) {
    if (el) {
      el.addEventListener('input', forget);
    }
  }
  for (const el of [setIn, setOut]) {
    if (el) {
      el.addEventListener('click', forget);
    }
  }
  // A marker chosen on the timeline (clicked, or Enter on it) is the
  // moment: its start and end as in and out (a single time sets in only).
  const momentRadio = form.querySelector('#add-moment');
  if (note && momentRadio && inInput && outInput) {
    note.dataset.hint = note.textContent;
    document.addEventListener('timeline:marker', (ev) => {
      const m = ev.detail || {};
      if (!Number.isFinite(m.t)) {
        return;
      }
      momentRadio.checked = true;
      show();
      clearProblems(form);
      const what = markerNoun(m);
      inInput.value = String(round(m.t));
      let text;
      if (m.end > m.t) {
        outInput.value = String(round(m.end));
        text = `In and out set from ${what} ${clock(m.t)}–${clock(m.end)}`;
      } else {
        if (!(seconds(outInput.value) > m.t)) {
          outInput.value = '';
        }
        text = `In set from ${what} at ${clock(m.t)}; set the out point`;
      }
      const link = document.createElement('a');
      link.href = '#add-to-compilation';
      link.textContent = 'Add to a compilation';
      note.replaceChildren(`${text}: `, link, '.');
      note.dataset.set = '1';
      announce(`${text}, in Add to a compilation.`);
    });
  }
  const result = form.querySelector('#add-result');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    // The last add's message goes at once: a second add is announced anew,
    // and not mistaken for the first one's answer.
    result.textContent = '';
    const select = form.querySelector('#add-compilation');
    const body = { item_id: itemId };
    if (moment()) {
      const v = formJSON(form);
      if (v.in_point !== undefined) {
        body.in_point = v.in_point;
      }
      if (v.out_point !== undefined) {
        body.out_point = v.out_point;
      }
      if (body.in_point === undefined || body.out_point === undefined) {
        showProblems(form, { message: 'A moment needs an in point and an out point.', fields: body.in_point === undefined ? { in_point: 'is required' } : { out_point: 'is required' } });
        return;
      }
    }
    try {
      await api('POST', `/api/data/compilations/${enc(select.value)}/items`, body);
      clearProblems(form);
      const alert = form.querySelector('[role="alert"]');
      if (alert) {
        alert.remove();
      }
      const name = select.options[select.selectedIndex].textContent;
      const link = document.createElement('a');
      link.href = `/compilations/${enc(select.value)}`;
      link.textContent = name;
      result.replaceChildren(`${moment() ? 'The moment was' : 'The item was'} added to `, link, '.');
    } catch (err) {
      result.textContent = '';
      showProblems(form, err);
    }
  });
}

// --- the list --------------------------------------------------------------

function setupList(main) {
  const status = main.querySelector('#compilations-status');
  const create = main.querySelector('#create-compilation');
  if (create) {
    create.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const v = formJSON(create);
      try {
        const c = await api('POST', '/api/data/compilations', { name: v.name || '', public: Boolean(v.public) });
        location.assign(`/compilations/${enc(c.compilation_id)}`);
      } catch (err) {
        showProblems(create, err);
      }
    });
  }
  main.addEventListener('submit', async (ev) => {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('clone-form')) {
      return;
    }
    ev.preventDefault();
    const row = form.closest('tr');
    try {
      const c = await api('POST', `/api/data/compilations/${enc(row.dataset.compilationId)}/clone`, { new_name: formJSON(form).new_name || '' });
      location.assign(`/compilations/${enc(c.compilation_id)}`);
    } catch (err) {
      showProblems(form, err);
    }
  });
  main.addEventListener('click', async (ev) => {
    const button = ev.target instanceof Element ? ev.target.closest('button.delete-compilation') : null;
    if (!button) {
      return;
    }
    const row = button.closest('tr');
    if (button.dataset.confirm !== '1') {
      button.dataset.confirm = '1';
      button.firstChild.textContent = 'Really delete?';
      announce(`Press again to delete the compilation ${row.dataset.name}.`);
      return;
    }
    button.disabled = true;
    try {
      await api('DELETE', `/api/data/compilations/${enc(row.dataset.compilationId)}`);
      row.remove();
      status.textContent = `The compilation ${row.dataset.name} was deleted.`;
      const h = document.getElementById('list-title');
      if (h) {
        h.setAttribute('tabindex', '-1');
        h.focus();
      }
    } catch (err) {
      button.disabled = false;
      status.textContent = err.message;
    }
  });
}

// --- a compilation -----------------------------------------------------------

function setupSettings(main) {
  const form = main.querySelector('#compilation-settings');
  if (!form) {
    return;
  }
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const v = formJSON(form);
    try {
      await api('PUT', `/api/data/compilations/${enc(main.dataset.compilationId)}`, { name: v.name || '', public: Boolean(v.public) });
      announce('The compilation was saved.');
      location.reload();
    } catch (err) {
      showProblems(form, err);
    }
  });
}

function setupEntries(main) {
  const list = main.querySelector('#entries');
  const status = main.querySelector('#entries-status');
  if (!list) {
    return;
  }
  const id = main.dataset.compilationId;
  const entries = () => Array.from(list.querySelectorAll('li.entry'));
  const label = (li) => li.querySelector('.entry-name').textContent + ' ' + li.querySelector('.entry-span').textContent;

  let saving = Promise.resolve();
  const save = (moved) => {
    const order = entries().map((li) => li.dataset.entryId);
    saving = saving.then(async () => {
      try {
        await api('PUT', `/api/data/compilations/${enc(id)}/order-items`, { items: order });
        if (moved) {
          const all = entries();
          status.textContent = `${label(moved)}: now ${all.indexOf(moved) + 1} of ${all.length}.`;
        }
      } catch (err) {
        status.textContent = `The order was not saved: ${err.message}`;
      }
    });
    return saving;
  };

  list.addEventListener('click', async (ev) => {
    const button = ev.target instanceof Element ? ev.target.closest('button') : null;
    const li = button ? button.closest('li.entry') : null;
    if (!li) {
      return;
    }
    if (button.classList.contains('move-up') || button.classList.contains('move-down')) {
      const up = button.classList.contains('move-up');
      const sibling = up ? li.previousElementSibling : li.nextElementSibling;
      if (!sibling) {
        status.textContent = `${label(li)} is ${up ? 'first' : 'last'} already.`;
        return;
      }
      if (up) {
        sibling.before(li);
      } else {
        sibling.after(li);
      }
      button.focus();
      await save(li);
    } else if (button.classList.contains('remove-entry')) {
      button.disabled = true;
      try {
        await api('DELETE', `/api/data/compilations/${enc(id)}/items/${enc(li.dataset.entryId)}`);
        const next = li.nextElementSibling || li.previousElementSibling;
        const text = `${label(li)} was removed.`;
        li.remove();
        status.textContent = text;
        const focus = next ? next.querySelector('button') : null;
        if (focus) {
          focus.focus();
        }
      } catch (err) {
        button.disabled = false;
        status.textContent = err.message;
      }
    }
  });

  // Drag and drop: an entry dropped on another goes before it (after it
  // in the lower half).
  let dragged = null;
  list.addEventListener('dragstart', (ev) => {
    const li = ev.target instanceof Element ? ev.target.closest('li.entry') : null;
    if (!li) {
      return;
    }
    dragged = li;
    li.classList.add('dragging');
    ev.dataTransfer.effectAllowed = 'move';
    ev.dataTransfer.setData('text/plain', li.dataset.entryId);
  });
  list.addEventListener('dragover', (ev) => {
    if (dragged) {
      ev.preventDefault();
      ev.dataTransfer.dropEffect = 'move';
    }
  });
  list.addEventListener('drop', async (ev) => {
    const target = ev.target instanceof Element ? ev.target.closest('li.entry') : null;
    if (!dragged || !target) {
      return;
    }
    ev.preventDefault();
    if (target !== dragged) {
      const r = target.getBoundingClientRect();
      if (ev.clientY > r.top + r.height / 2) {
        target.after(dragged);
      } else {
        target.before(dragged);
      }
      const li = dragged;
      dragged = null;
      li.classList.remove('dragging');
      await save(li);
    }
  });
  list.addEventListener('dragend', () => {
    if (dragged) {
      dragged.classList.remove('dragging');
      dragged = null;
    }
  });
}

// The playlist: each entry that plays (data-src) from its in point to its
// out point (the whole item without them), then the next, in the order
// the list has now.
function setupPlayer(main) {
  const player = main.querySelector('#compilation-player');
  const play = main.querySelector('#play-all');
  const now = main.querySelector('#now-playing');
  const list = main.querySelector('#entries');
  if (!player || !play || !list) {
    return;
  }
  let queue = [];
  let at = -1;
  let current = null;

  const stop = (text) => {
    if (current) {
      current.li.removeAttribute('aria-current');
    }
    current = null;
    at = -1;
    player.pause();
    now.textContent = text;
  };

  const playAt = (i) => {
    if (current) {
      current.li.removeAttribute('aria-current');
    }
    if (i >= queue.length) {
      stop('The compilation has played to its end.');
      return;
    }
    at = i;
    current = queue[i];
    current.li.setAttribute('aria-current', 'true');
    player.dataset.entry = String(i);
    now.textContent = `Playing ${i + 1} of ${queue.length}: ${current.li.querySelector('.entry-name').textContent}`;
    const begin = () => {
      player.currentTime = Number.isFinite(current.in) ? current.in : 0;
      start(player);
    };
    if (player.getAttribute('src') === current.src && player.readyState >= HTMLMediaElement.HAVE_METADATA) {
      begin();
    } else {
      player.src = current.src;
      player.addEventListener('loadedmetadata', begin, { once: true });
      player.load();
    }
  };

  player.addEventListener('timeupdate', () => {
    if (current && Number.isFinite(current.out) && player.currentTime >= current.out && !player.seeking) {
      playAt(at + 1);
    }
  });
  player.addEventListener('ended', () => {
    if (current) {
      playAt(at + 1);
    }
  });
  player.addEventListener('error', () => {
    if (current) {
      now.textContent = `${current.li.querySelector('.entry-name').textContent} could not be played; the next entry follows.`;
      playAt(at + 1);
    }
  });
  play.addEventListener('click', () => {
    queue = Array.from(list.querySelectorAll('li.entry[data-src]')).map((li) => ({
      li,
      src: li.dataset.src,
      in: seconds(li.dataset.in),
      out: seconds(li.dataset.out),
    }));
    playAt(0);
  });
}

function init() {
  const item = document.getElementById('item');
  const addForm = document.getElementById('add-form');
  if (item && addForm) {
    setupAdd(addForm, item.dataset.itemId);
  }
  const listMain = document.getElementById('compilations');
  if (listMain) {
    setupList(listMain);
  }
  const main = document.getElementById('compilation');
  if (main) {
    setupSettings(main);
    setupEntries(main);
    setupPlayer(main);
  }
}

init();
