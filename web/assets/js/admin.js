// The administration screens: users, groups, roles, API keys, extractors
// and the overview's platform summary. The server renders the lists; every
// change is a request to the JSON API (api.js), which checks the scopes,
// validates and writes the audit events. After a change the page reloads
// with a short message carried in sessionStorage, except for a new API
// key: its secret is in this page only, once, and never again.
// Untrusted text (names, emails, messages) goes in as textContent only.

import { announce, api, clearProblems, formJSON, showProblems } from './api.js';

const FLASH = 'metaharvest-admin-flash';
const enc = encodeURIComponent;

function byId(id) {
  return document.getElementById(id);
}

// reloadWith reloads the page and shows text on the reloaded page.
function reloadWith(text) {
  try {
    sessionStorage.setItem(FLASH, text);
  } catch {
    // no storage: the reloaded list shows the change anyway
  }
  location.reload();
}

function showFlash() {
  const el = byId('admin-flash');
  let text = null;
  try {
    text = sessionStorage.getItem(FLASH);
    sessionStorage.removeItem(FLASH);
  } catch {
    text = null;
  }
  if (el && text) {
    el.textContent = text;
    el.hidden = false;
  }
}

function showError(err) {
  const el = byId('admin-error');
  const text = (err && err.message) || String(err);
  if (!el) {
    announce(text);
    return;
  }
  el.textContent = text;
  el.hidden = false;
}

function clearError() {
  const el = byId('admin-error');
  if (el) {
    el.hidden = true;
    el.textContent = '';
  }
}

// onSubmit runs action(form) on submit; the api's problems show beside
// the form's fields.
function onSubmit(form, action) {
  if (!form) {
    return;
  }
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearProblems(form);
    clearError();
    const button = form.querySelector('button[type=submit]');
    if (button) {
      button.disabled = true;
    }
    try {
      await action(form);
    } catch (err) {
      showProblems(form, err);
    } finally {
      if (button) {
        button.disabled = false;
      }
    }
  });
}

// textFields are a form's text inputs and selects by name, empty ones
// included (an edit may clear a field).
function textFields(form, names) {
  const out = {};
  for (const n of names) {
    const el = form.elements.namedItem(n);
    if (el) {
      out[n] = el.value.trim();
    }
  }
  return out;
}

function checkedValues(form, name) {
  return [...form.querySelectorAll(`input[name="${name}"]:checked`)].map((el) => el.value);
}

function words(s) {
  return (s || '').split(/\s+/).filter(Boolean);
}

function rowOf(el) {
  return el.closest('tr[data-id], tr[data-name]');
}

// Editors: one form per screen, filled from the row whose Edit button was
// pressed.
function openEditor(kind, row) {
  const section = byId(`${kind}-edit`);
  const form = byId(`${kind}-edit-form`);
  if (!section || !form) {
    return;
  }
  clearProblems(form);
  const alert = form.querySelector('[role="alert"]');
  if (alert) {
    alert.remove();
  }
  form.dataset.id = row.dataset.id;
  const d = row.dataset;
  section.querySelector('.editing').textContent = d.email || d.name || '';
  if (kind === 'user') {
    setValue(form, 'first_name', d.first);
    setValue(form, 'last_name', d.last);
    setValue(form, 'role_id', d.role);
    const enabled = form.elements.namedItem('enabled');
    if (enabled) {
      enabled.checked = d.enabled === 'true';
    }
    const groups = new Set(words(d.groups));
    for (const box of form.querySelectorAll('input[name="group"]')) {
      box.checked = groups.has(box.value);
    }
  } else if (kind === 'group') {
    setValue(form, 'name', d.name);
    setValue(form, 'description', d.description);
  } else if (kind === 'role') {
    const scopes = new Set(words(d.scopes));
    for (const box of form.querySelectorAll('input[name="scope"]')) {
      box.checked = scopes.has(box.value);
    }
  }
  section.hidden = false;
  section.querySelector('h2').focus();
}

function setValue(form, name, value) {
  const el = form.elements.namedItem(name);
  if (el) {
    el.value = value || '';
  }
}

function closeEditor(section) {
  section.hidden = true;
  const form = section.querySelector('form');
  const row = form && document.querySelector(`tr[data-id="${CSS.escape(form.dataset.id || '')}"]`);
  const back = row && row.querySelector('button[data-edit]');
  if (back) {
    back.focus();
  }
}

// Delete buttons ask once more before they act: the first press turns the
// button into a confirmation for a few seconds (no dialog).
const armed = new WeakMap();

async function pressDelete(button) {
  const row = rowOf(button);
  if (!armed.has(button)) {
    const original = [...button.childNodes].map((n) => n.cloneNode(true));
    const timer = setTimeout(() => disarm(button), 6000);
    armed.set(button, { original, timer });
    button.textContent = `Confirm: delete ${button.dataset.label}`;
    announce(`Press again to delete ${button.dataset.label}.`);
    return;
  }
  disarm(button);
  clearError();
  button.disabled = true;
  try {
    await api('DELETE', button.dataset.delete + enc(row.dataset.id));
    reloadWith(`Deleted ${button.dataset.label}.`);
  } catch (err) {
    showError(err);
    button.disabled = false;
  }
}

function disarm(button) {
  const a = armed.get(button);
  if (!a) {
    return;
  }
  clearTimeout(a.timer);
  armed.delete(button);
  button.replaceChildren(...a.original);
}

async function toggleKey(button) {
  const row = rowOf(button);
  const active = row.dataset.active === 'true';
  clearError();
  button.disabled = true;
  try {
    const k = await api('PATCH', `/api/data/api-keys/${enc(row.dataset.id)}`, { active: !active });
    setKeyState(row, button, k.active);
    announce(k.active ? `Key ${k.name} is active.` : `Key ${k.name} is deactivated.`);
  } catch (err) {
    showError(err);
  } finally {
    button.disabled = false;
  }
}

function setKeyState(row, button, active) {
  row.dataset.active = String(active);
  row.querySelector('.state').textContent = active ? 'Yes' : 'No: deactivated';
  button.firstChild.textContent = active ? 'Deactivate' : 'Activate';
}

async function toggleExtractor(button) {
  const row = rowOf(button);
  const enabled = row.dataset.enabled === 'true';
  clearError();
  button.disabled = true;
  try {
    const x = await api('PUT', `/api/data/extractors/${enc(row.dataset.name)}`, { enabled: !enabled });
    row.dataset.enabled = String(x.enabled);
    row.querySelector('.state').textContent = x.enabled ? 'Enabled' : 'Disabled';
    button.firstChild.textContent = x.enabled ? 'Disable' : 'Enable';
    announce(`${x.display_name || x.name} is ${x.enabled ? 'enabled' : 'disabled'}.`);
  } catch (err) {
    showError(err);
  } finally {
    button.disabled = false;
  }
}

function wireClicks(main) {
  main.addEventListener('click', (ev) => {
    const button = ev.target instanceof Element ? ev.target.closest('button') : null;
    if (!button) {
      return;
    }
    if (button.dataset.delete !== undefined) {
      pressDelete(button);
    } else if (button.dataset.edit) {
      openEditor(button.dataset.edit, rowOf(button));
    } else if (button.dataset.cancel !== undefined) {
      closeEditor(button.closest('section'));
    } else if (button.dataset.keyToggle !== undefined) {
      toggleKey(button);
    } else if (button.dataset.extractorToggle !== undefined) {
      toggleExtractor(button);
    }
  });
}

// Users

function wireUsers() {
  onSubmit(byId('user-new'), async (form) => {
    const body = formJSON(form);
    const u = await api('POST', '/api/data/users', body);
    reloadWith(`Created the user ${u.email}.`);
  });
  onSubmit(byId('user-edit-form'), async (form) => {
    const id = form.dataset.id;
    const row = document.querySelector(`tr[data-id="${CSS.escape(id)}"]`);
    if (form.querySelector('[data-users-write]')) {
      const body = textFields(form, ['first_name', 'last_name', 'role_id']);
      body.enabled = form.elements.namedItem('enabled').checked;
      await api('PATCH', `/api/data/users/${enc(id)}`, body);
    }
    if (form.querySelector('[data-groups-write]')) {
      const had = new Set(words(row.dataset.groups));
      const want = new Set(checkedValues(form, 'group'));
      for (const g of want) {
        if (!had.has(g)) {
          await api('PUT', `/api/data/v3/users/${enc(id)}/groups/${enc(g)}`);
        }
      }
      for (const g of had) {
        if (!want.has(g)) {
          await api('DELETE', `/api/data/v3/users/${enc(id)}/groups/${enc(g)}`);
        }
      }
    }
    reloadWith(`Saved the user ${row.dataset.email}.`);
  });
}

// Groups

function wireGroups() {
  onSubmit(byId('group-new'), async (form) => {
    const g = await api('POST', '/api/data/v3/groups', textFields(form, ['name', 'description']));
    reloadWith(`Created the group ${g.name}.`);
  });
  onSubmit(byId('group-edit-form'), async (form) => {
    const g = await api('PUT', `/api/data/v3/groups/${enc(form.dataset.id)}`, textFields(form, ['name', 'description']));
    reloadWith(`Saved the group ${g.name}.`);
  });
}

// Roles

async function loadScopes() {
  const boxes = document.querySelectorAll('.scopeboxes');
  if (boxes.length === 0) {
    return;
  }
  let catalogue;
  try {
    catalogue = await api('GET', '/api/data/roles/scopes');
  } catch (err) {
    for (const box of boxes) {
      box.textContent = `The scopes could not be loaded: ${err.message}`;
    }
    return;
  }
  catalogue.sort((a, b) => a.sort_order - b.sort_order);
  for (const box of boxes) {
    const prefix = box.dataset.prefix;
    box.replaceChildren();
    for (const group of catalogue) {
      const fs = document.createElement('fieldset');
      const legend = document.createElement('legend');
      legend.textContent = group.name;
      fs.append(legend);
      for (const s of group.scopes) {
        const div = document.createElement('div');
        div.className = 'check';
        const input = document.createElement('input');
        input.type = 'checkbox';
        input.name = 'scope';
        input.value = s.name;
        input.id = `${prefix}-${s.name.replace(/[^a-z0-9]/gi, '-')}`;
        const label = document.createElement('label');
        label.htmlFor = input.id;
        label.textContent = `${s.display_name} `;
        const code = document.createElement('code');
        code.textContent = s.name;
        label.append(code);
        div.append(input, ' ', label);
        fs.append(div);
      }
      box.append(fs);
    }
  }
}

function wireRoles() {
  onSubmit(byId('role-new'), async (form) => {
    const body = textFields(form, ['name', 'description']);
    body.scopes = checkedValues(form, 'scope');
    const r = await api('POST', '/api/data/roles', body);
    reloadWith(`Created the role ${r.name}.`);
  });
  onSubmit(byId('role-edit-form'), async (form) => {
    const id = form.dataset.id;
    const row = document.querySelector(`tr[data-id="${CSS.escape(id)}"]`);
    const had = new Set(words(row.dataset.scopes));
    const want = checkedValues(form, 'scope');
    const add = want.filter((s) => !had.has(s));
    const remove = [...had].filter((s) => !want.includes(s));
    if (add.length > 0) {
      await api('POST', `/roles/${enc(id)}`, { scopes: add });
    }
    if (remove.length > 0) {
      await api('DELETE', `/roles/${enc(id)}/${remove.map(enc).join(',')}`);
    }
    reloadWith(`Saved the scopes of the role ${row.dataset.name}.`);
  });
  loadScopes();
}

// API keys

function wireKeys() {
  onSubmit(byId('key-new'), async (form) => {
    const k = await api('POST', '/api/data/api-keys', formJSON(form));
    const alert = form.querySelector('[role="alert"]');
    if (alert) {
      alert.remove();
    }
    form.reset();
    const box = byId('key-secret');
    box.querySelector('.keyname').textContent = k.name;
    byId('key-secret-value').value = k.jwt;
    box.hidden = false;
    box.focus();
    addKeyRow(k);
    announce(`Created the key ${k.name}. Copy it now: it is not shown again.`);
  });
  const copy = byId('key-copy');
  if (copy) {
    copy.addEventListener('click', async () => {
      const input = byId('key-secret-value');
      try {
        await navigator.clipboard.writeText(input.value);
        announce('The key is copied.');
      } catch {
        input.focus();
        input.select();
        announce('The key is selected: copy it with Ctrl+C (Cmd+C on a Mac).');
      }
    });
  }
}

function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

function addKeyRow(k) {
  const table = byId('keys');
  const body = table.tBodies[0];
  const none = body.querySelector('tr.none');
  if (none) {
    none.remove();
  }
  const heads = [...table.tHead.rows[0].cells].map((c) => c.textContent);
  const tr = document.createElement('tr');
  tr.dataset.id = k.id;
  tr.dataset.active = String(k.active);
  const name = cell('th', k.name);
  name.scope = 'row';
  tr.append(name);
  if (heads.includes('Owner')) {
    tr.append(cell('td', 'you'));
  }
  tr.append(cell('td', `${k.created_at.replace('T', ' ').replace(/\..*|Z$/, '')} UTC`));
  const state = cell('td', k.active ? 'Yes' : 'No: deactivated');
  state.className = 'state';
  tr.append(state);
  if (heads.includes('Actions')) {
    const actions = document.createElement('td');
    actions.className = 'rowactions';
    const toggle = cell('button', k.active ? 'Deactivate' : 'Activate');
    toggle.type = 'button';
    toggle.className = 'secondary';
    toggle.dataset.keyToggle = '';
    toggle.append(hiddenText(` ${k.name}`));
    const del = cell('button', 'Delete');
    del.type = 'button';
    del.className = 'danger';
    del.dataset.delete = '/api/data/api-keys/';
    del.dataset.label = `key ${k.name}`;
    del.append(hiddenText(` ${k.name}`));
    actions.append(toggle, ' ', del);
    tr.append(actions);
  }
  body.append(tr);
}

function hiddenText(text) {
  const span = cell('span', text);
  span.className = 'vh';
  return span;
}

// Overview: the platform's settings, from the api (provider keys are
// only said to be configured or not; the api never answers their values).

function humanSize(n) {
  if (!n) {
    return '0 B';
  }
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

async function loadPlatform() {
  const section = byId('platform');
  if (!section) {
    return;
  }
  const loading = section.querySelector('.loading');
  let s;
  try {
    s = await api('GET', '/api/data/summary/platform');
  } catch (err) {
    loading.textContent = `The platform’s settings could not be loaded: ${err.message}`;
    section.setAttribute('aria-busy', 'false');
    return;
  }
  const o = s.offering || {};
  const up = o.uploadstore || {};
  const configured = (v) => (v ? 'configured' : 'not configured');
  // An interval in seconds, as people say it: every hour, every 90 minutes.
  const everyInterval = (sec) => {
    for (const [unit, n] of [['day', 86400], ['hour', 3600], ['minute', 60]]) {
      if (sec >= n && sec % n === 0) {
        const k = sec / n;
        return k === 1 ? `every ${unit}` : `every ${k} ${unit}s`;
      }
    }
    return `every ${sec} s`;
  };
  const rows = [
    ['Base URL', o.base_url || 'not set'],
    ['Live harvest refresh', everyInterval(s.harvest_refresh_time)],
    ['Upload store', up.enabled ? `enabled, ${up.limit_bytes > 0 ? `up to ${humanSize(up.limit_bytes)} a file` : 'no size limit'}` : 'disabled'],
    ['Ignored upload names', (up.ignore_patterns || []).join(', ') || 'none'],
    ['Password length', `${s.password_length_minimum} to ${s.password_length_maximum} characters`],
    ['Maps key', configured(s.maps_key)],
    ['Error tracker key', configured(s.error_tracker_write_key_frontend)],
    ['Analytics key', configured(s.analytics_write_key)],
  ];
  const dl = document.createElement('dl');
  dl.className = 'summary';
  for (const [k, v] of rows) {
    const div = document.createElement('div');
    div.append(cell('dt', k), cell('dd', v));
    dl.append(div);
  }
  loading.replaceWith(dl);
  section.setAttribute('aria-busy', 'false');
}

function init() {
  const main = document.querySelector('main.admin');
  if (!main) {
    return;
  }
  showFlash();
  wireClicks(main);
  wireUsers();
  wireGroups();
  wireRoles();
  wireKeys();
  loadPlatform();
}

init();
