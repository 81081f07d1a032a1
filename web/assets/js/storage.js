// The storage pages: create a location (GET /storage), change or delete
// one and turn live harvest of its containers on and off (GET
// /storage/{id}). Every change is a request to the JSON API (api.js); its
// validation problems show beside the fields. Text only, never markup.

import { api, announce, clearProblems, showProblems } from './api.js';

const status = document.getElementById('storage-status');

function say(text) {
  if (status) {
    status.textContent = text; // role=status: said once, politely
  } else {
    announce(text);
  }
}

// fieldProblems renames the api's "config.x" problems to the form's "x".
function fieldProblems(err) {
  const fields = {};
  for (const [k, v] of Object.entries(err.fields || {})) {
    fields[k.startsWith('config.') ? k.slice(7) : k] = v;
  }
  err.fields = fields;
  return err;
}

// explain makes an error a sentence for people: the api's own message,
// and what to do when the platform or the storage could not be reached.
function explain(err) {
  if (err.status === 0) {
    err.message = 'The platform could not be reached: nothing was saved. Check the connection and try again.';
  } else if (err.status >= 500 || err.code === 'location_unreachable' || err.code === 'location_unavailable') {
    err.message = `${err.message} (the storage may be unreachable or refused the settings; nothing was saved)`;
  }
  return fieldProblems(err);
}

// kindConfig is the settings of the fieldset of kind in form: checkboxes
// as booleans, text when filled in (a secret left empty keeps the stored
// one on update).
function kindConfig(form, kind) {
  const config = {};
  const set = form.querySelector(`fieldset.kind-fields[data-kind="${CSS.escape(kind)}"]`);
  if (!set) {
    return config;
  }
  for (const el of set.querySelectorAll('[data-config]')) {
    if (el.dataset.type === 'boolean') {
      config[el.dataset.config] = el.checked;
    } else if (el.value.trim() !== '') {
      config[el.dataset.config] = el.value.trim();
    }
  }
  return config;
}

async function submit(form, button, send) {
  clearProblems(form);
  button.disabled = true;
  try {
    await send();
  } catch (err) {
    showProblems(form, explain(err));
    const first = form.querySelector('[aria-invalid="true"]');
    if (first) {
      first.focus();
    }
  } finally {
    button.disabled = false;
  }
}

// The create form: the kind chosen shows its settings.
const create = document.getElementById('new-location');
if (create) {
  const kind = create.querySelector('select[name="kind"]');
  const showKind = () => {
    for (const set of create.querySelectorAll('fieldset.kind-fields')) {
      const on = set.dataset.kind === kind.value;
      set.hidden = !on;
      set.disabled = !on;
    }
  };
  kind.addEventListener('change', showKind);
  showKind();
  create.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const button = create.querySelector('button[type="submit"]');
    submit(create, button, async () => {
      const body = { kind: kind.value, name: create.elements.name.value.trim(), config: kindConfig(create, kind.value) };
      const made = await api('POST', '/api/data/v3/locations', body);
      say(`Location ${made.name} created.`);
      window.location.assign(`/storage/${encodeURIComponent(made.id)}`);
    });
  });
}

const main = document.querySelector('main.location');
const locID = main ? main.dataset.id : '';

// Edit: the version the page was made from goes with the change, so that
// a change made meanwhile by someone else is not overwritten.
const edit = document.getElementById('edit-location');
if (edit) {
  edit.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const button = edit.querySelector('button[type="submit"]');
    submit(edit, button, async () => {
      const body = {
        kind: edit.dataset.kind,
        name: edit.elements.name.value.trim(),
        config: kindConfig(edit, edit.dataset.kind),
        version: Number(edit.dataset.version),
      };
      try {
        await api('PUT', `/api/data/v3/locations/${encodeURIComponent(locID)}`, body);
      } catch (err) {
        if (err.code === 'version_conflict') {
          err.message = `${err.message}. Someone changed it meanwhile: reload the page to see their change.`;
        }
        throw err;
      }
      say('Saved.');
      window.location.reload();
    });
  });
}

// Delete asks once more on the page (a button, not a dialog).
const del = document.getElementById('delete-location');
if (del) {
  const confirmBox = document.getElementById('delete-confirm');
  const really = document.getElementById('delete-really');
  const keep = document.getElementById('delete-keep');
  const close = () => {
    confirmBox.hidden = true;
    del.setAttribute('aria-expanded', 'false');
    del.focus();
  };
  del.addEventListener('click', () => {
    confirmBox.hidden = false;
    del.setAttribute('aria-expanded', 'true');
    really.focus();
  });
  keep.addEventListener('click', close);
  really.addEventListener('click', async () => {
    really.disabled = true;
    try {
      await api('DELETE', `/api/data/v3/locations/${encodeURIComponent(locID)}`);
      say('Location deleted.');
      window.location.assign('/storage');
    } catch (err) {
      say(`Not deleted: ${explain(err).message}`);
      really.disabled = false;
    }
  });
}

// Live harvest on and off per container.
for (const row of document.querySelectorAll('tr.container')) {
  const button = row.querySelector('button.toggle');
  if (!button) {
    continue;
  }
  button.addEventListener('click', async () => {
    const enabled = row.dataset.enabled !== 'true';
    button.disabled = true;
    try {
      const ct = await api('PUT', '/api/data/containers', { id: row.dataset.id, location_id: locID, enabled });
      row.dataset.enabled = String(ct.enabled);
      row.querySelector('.state').textContent = ct.enabled ? 'on' : 'off';
      button.firstChild.textContent = ct.enabled ? 'Turn live harvest off' : 'Turn live harvest on';
      say(`Live harvest of ${row.dataset.name} is ${ct.enabled ? 'on' : 'off'}.`);
    } catch (err) {
      say(`Live harvest of ${row.dataset.name} was not changed: ${explain(err).message}`);
    } finally {
      button.disabled = false;
    }
  });
}

// Looking for new containers asks the storage itself (the api records
// what it finds), then shows the page again.
const find = document.getElementById('find-containers');
if (find) {
  find.addEventListener('click', async () => {
    find.disabled = true;
    say('Looking for containers…');
    try {
      let cursor = '';
      for (let n = 0; n < 20; n++) {
        const q = cursor ? `?cursor=${encodeURIComponent(cursor)}` : '';
        const page = await api('GET', `/api/data/locations/${encodeURIComponent(locID)}/containers${q}`);
        cursor = page.next_cursor || '';
        if (!cursor) {
          break;
        }
      }
      window.location.reload();
    } catch (err) {
      say(`The containers could not be listed: ${explain(err).message}`);
      find.disabled = false;
    }
  });
}
