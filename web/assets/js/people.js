// People: name a person in place on the People page; on a person's page
// rename, merge ("this is also ..."), hide or show, delete, and remove
// faces that are not of this person. Every change goes through the api
// (People API, docs/people.md).

import { api, announce, upload } from './api.js';

const enc = encodeURIComponent;
const status = () => document.getElementById('people-status');

function say(text) {
  const s = status();
  if (s) {
    s.textContent = text;
  }
  announce(text);
}

async function act(fn, done) {
  try {
    await fn();
    say(done);
    return true;
  } catch (e) {
    say(`Not done: ${e.message}`);
    return false;
  }
}

// The People page: each unnamed face has a name form.
for (const form of document.querySelectorAll('.person-card .name-form')) {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const card = form.closest('.person-card');
    const id = card.dataset.personId;
    const name = form.elements.name.value.trim();
    if (!name) {
      return;
    }
    if (await act(() => api('PATCH', `/api/data/people/${enc(id)}`, { name }), `Named ${name}.`)) {
      card.querySelector('.person-name').textContent = name;
      form.remove();
    }
  });
}

// Teaching a person from pictures: a form of name and pictures on the
// People page, of more pictures on a person's page.
function pictures(form) {
  const data = new FormData();
  for (const f of form.elements.pictures.files) {
    data.append('pictures', f, f.name);
  }
  return data;
}

const teach = document.getElementById('teach-form');
if (teach) {
  teach.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const name = teach.elements.name.value.trim();
    if (!name || teach.elements.pictures.files.length === 0) {
      return;
    }
    const data = pictures(teach);
    data.append('name', name);
    let created = null;
    if (await act(async () => { created = await upload('/api/data/people', data); }, `${name} is being taught.`)) {
      window.location.assign(`/people/${enc(created.person.person_id)}`);
    }
  });
}

// A person's page.
const page = document.getElementById('person');
if (page) {
  const id = page.dataset.personId;
  const path = `/api/data/people/${enc(id)}`;
  const rename = document.getElementById('rename-form');
  if (rename) {
    rename.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const name = rename.elements.name.value.trim();
      if (await act(() => api('PATCH', path, { name }), name ? `Named ${name}.` : 'The name is removed.')) {
        document.getElementById('page-title').textContent = name || 'Unnamed person';
      }
    });
  }
  const merge = document.getElementById('merge-form');
  if (merge) {
    merge.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const other = merge.elements.person_id.value;
      if (other && (await act(() => api('POST', `${path}/merge`, { person_ids: [other] }), 'Merged.'))) {
        window.location.reload();
      }
    });
  }
  const hide = document.getElementById('hide-person');
  if (hide) {
    hide.addEventListener('click', async () => {
      const hidden = hide.dataset.hidden !== 'true';
      if (await act(() => api('PATCH', path, { hidden }), hidden ? 'Hidden from the People page.' : 'Shown on the People page.')) {
        window.location.reload();
      }
    });
  }
  const del = document.getElementById('delete-person');
  if (del) {
    del.addEventListener('click', async () => {
      if (!window.confirm('Delete this person? Their faces stay, as unknown faces.')) {
        return;
      }
      if (await act(() => api('DELETE', path), 'Deleted.')) {
        window.location.assign('/people');
      }
    });
  }
  const more = document.getElementById('teach-more-form');
  if (more) {
    more.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (more.elements.pictures.files.length === 0) {
        return;
      }
      if (await act(() => upload(`${path}/references`, pictures(more)), 'The pictures are being described.')) {
        window.location.reload();
      }
    });
  }
  for (const btn of document.querySelectorAll('.delete-reference')) {
    btn.addEventListener('click', async () => {
      const li = btn.closest('li[data-reference-id]');
      if (await act(() => api('DELETE', `${path}/references/${enc(li.dataset.referenceId)}`), 'The reference picture is removed.')) {
        li.remove();
      }
    });
  }
  for (const btn of document.querySelectorAll('.reject-face')) {
    btn.addEventListener('click', async () => {
      const li = btn.closest('li[data-face]');
      const item = btn.closest('.person-item').dataset.itemId;
      if (await act(() => api('DELETE', `${path}/faces/${enc(item)}/${enc(li.dataset.face)}`), 'The face is taken off this person.')) {
        li.remove();
      }
    });
  }
}
