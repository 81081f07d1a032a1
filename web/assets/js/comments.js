// Comments on the item page: add (with the player's time when the box is
// ticked), edit, delete and the history of a comment, through the api.
// The page renders the comments (their markdown on the server); after a
// change the page is loaded again, so the list and the timeline's comments
// lane show what the platform stored. Bodies of the history are text.

import { api, announce, showProblems } from './api.js';
import { plainClick, seconds, seek } from './player.js';

// marker writes seconds as the api's time marker hh:mm:ss:cc.
export function marker(t) {
  const cs = Math.max(0, Math.round(t * 100));
  const two = (n) => String(n).padStart(2, '0');
  return `${two(Math.floor(cs / 360000))}:${two(Math.floor(cs / 6000) % 60)}:${two(Math.floor(cs / 100) % 60)}:${two(cs % 100)}`;
}

// clock writes seconds as 0:12 or 1:02:03.
export function clock(t) {
  const s = Math.max(0, Math.floor(t));
  const two = (n) => String(n).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}

function reload(text) {
  announce(text);
  location.reload();
}

function setupForm(section, itemId, player) {
  const form = section.querySelector('#comment-form');
  if (!form) {
    return;
  }
  const at = form.querySelector('#comment-at');
  const atLabel = form.querySelector('#comment-at-label');
  if (at && atLabel && player) {
    // Ticked once the player has moved (a comment on a moment), unless
    // the person set the box themselves.
    let touched = false;
    at.checked = player.currentTime > 0;
    at.addEventListener('change', () => {
      touched = true;
    });
    const update = () => {
      atLabel.textContent = `at ${clock(player.currentTime)}`;
      if (!touched && player.currentTime > 0) {
        at.checked = true;
      }
    };
    for (const type of ['timeupdate', 'seeked', 'loadedmetadata']) {
      player.addEventListener(type, update);
    }
    update();
  }
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = form.querySelector('textarea[name="body"]').value;
    const req = { target_type: 'item', target_id: itemId, body };
    if (at && at.checked && player) {
      req.time_marker = marker(player.currentTime);
    }
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      await api('POST', '/api/data/comments', req);
      reload('The comment was added.');
    } catch (err) {
      showProblems(form, err);
      button.disabled = false;
    }
  });
}

async function showHistory(li, id, button) {
  const box = li.querySelector('.comment-versions');
  if (!box) {
    return;
  }
  if (!box.hidden) {
    box.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    return;
  }
  box.replaceChildren();
  try {
    const res = await api('GET', `/api/data/comments/${encodeURIComponent(id)}/history?limit=100`);
    const h = document.createElement('h3');
    h.textContent = 'Versions';
    const list = document.createElement('ol');
    list.className = 'versions';
    for (const v of res.comments || []) {
      const item = document.createElement('li');
      const meta = document.createElement('p');
      meta.className = 'note';
      const who = v.author ? `${v.author.first_name || ''} ${v.author.last_name || ''}`.trim() || v.author.email : '';
      meta.textContent = `${new Date(v.ctime).toISOString().slice(0, 16).replace('T', ' ')} UTC${who ? ` · ${who}` : ''}${v.time_marker ? ` · at ${v.time_marker}` : ''}`;
      const text = document.createElement('p');
      text.className = 'version-body';
      text.textContent = v.body;
      item.append(meta, text);
      list.append(item);
    }
    box.append(h, list);
  } catch (err) {
    const p = document.createElement('p');
    p.className = 'problem';
    p.setAttribute('role', 'alert');
    p.textContent = err.message;
    box.append(p);
  }
  box.hidden = false;
  button.setAttribute('aria-expanded', 'true');
}

function setupList(section, player) {
  section.addEventListener('click', async (ev) => {
    const t = ev.target instanceof Element ? ev.target : null;
    if (!t) {
      return;
    }
    const time = t.closest('a.comment-time');
    if (time && player && plainClick(ev)) {
      const s = seconds(time.dataset.t);
      if (Number.isFinite(s)) {
        ev.preventDefault();
        seek(player, s, true);
      }
      return;
    }
    const button = t.closest('button');
    const li = t.closest('li.comment');
    if (!button || !li) {
      return;
    }
    const id = li.dataset.commentId;
    const form = li.querySelector('.comment-edit-form');
    if (button.classList.contains('comment-history')) {
      await showHistory(li, id, button);
    } else if (button.classList.contains('comment-edit') && form) {
      form.hidden = !form.hidden;
      button.setAttribute('aria-expanded', String(!form.hidden));
      if (!form.hidden) {
        form.querySelector('textarea').focus();
      }
    } else if (button.classList.contains('comment-cancel') && form) {
      form.hidden = true;
      const edit = li.querySelector('.comment-edit');
      if (edit) {
        edit.setAttribute('aria-expanded', 'false');
        edit.focus();
      }
    } else if (button.classList.contains('comment-delete')) {
      if (button.dataset.confirm !== '1') {
        button.dataset.confirm = '1';
        button.textContent = 'Really delete?';
        announce('Press again to delete the comment.');
        return;
      }
      button.disabled = true;
      try {
        await api('DELETE', `/api/data/comments/${encodeURIComponent(id)}`);
        reload('The comment was deleted.');
      } catch (err) {
        button.disabled = false;
        announce(err.message);
      }
    }
  });
  section.addEventListener('submit', async (ev) => {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('comment-edit-form')) {
      return;
    }
    ev.preventDefault();
    const li = form.closest('li.comment');
    try {
      await api('PUT', '/api/data/comments', { id: li.dataset.commentId, body: form.querySelector('textarea').value });
      reload('The comment was changed.');
    } catch (err) {
      showProblems(form, err);
    }
  });
}

function init() {
  const main = document.getElementById('item');
  const section = document.getElementById('comments');
  if (!main || !section) {
    return;
  }
  const p = document.getElementById('player');
  const player = p instanceof HTMLMediaElement ? p : null;
  setupForm(section, main.dataset.itemId, player);
  setupList(section, player);
}

init();
