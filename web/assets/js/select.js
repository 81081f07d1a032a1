// Multi-select on the search results (add to a compilation, set a custom
// field, harvest again) and "Add to compilation" on the moments page. Each
// action is api requests through api.js; the status line (a live region)
// says what was done and what the api refused.
import { api, ApiError, showProblems, clearProblems } from './api.js';

function say(status, text, problem) {
  status.textContent = text;
  status.classList.toggle('problem', !!problem);
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

// myCompilations are the compilations the user may add to: their own
// (every one for an administrator). The api lists the public ones too.
let compilationsLoad = null;
function myCompilations(user, admin) {
  if (!compilationsLoad) {
    compilationsLoad = api('GET', '/api/data/compilations').then((body) =>
      (body.compilations || []).filter((c) => admin || (c.author && c.author.user_id === user)),
    );
    compilationsLoad.catch(() => {
      compilationsLoad = null;
    });
  }
  return compilationsLoad;
}

async function fillCompilations(select, user, admin) {
  let list;
  try {
    list = await myCompilations(user, admin);
  } catch (err) {
    select.replaceChildren(new Option(`Could not load compilations: ${err.message}`, ''));
    return false;
  }
  if (list.length === 0) {
    select.replaceChildren(new Option('You have no compilations yet: make one on the Compilations page', ''));
    return false;
  }
  select.replaceChildren(...list.map((c) => new Option(`${c.name} (${plural(c.num_items, 'entry', 'entries')})`, c.compilation_id)));
  return true;
}

// addEntries posts each entry in turn; it returns how many went in and
// the api's messages for the others.
async function addEntries(compilationID, entries) {
  let added = 0;
  const failed = [];
  for (const e of entries) {
    try {
      await api('POST', `/api/data/compilations/${encodeURIComponent(compilationID)}/items`, e.body);
      added++;
    } catch (err) {
      failed.push(`${e.name}: ${err.message}`);
    }
  }
  return { added, failed };
}

function initResults(ui) {
  const user = ui.dataset.user;
  const admin = ui.dataset.admin === '1';
  const boxes = [...document.querySelectorAll('input.pick-box')];
  const all = document.getElementById('select-all');
  const toolbar = document.getElementById('selection');
  const count = document.getElementById('sel-count');
  const status = document.getElementById('sel-status');
  ui.hidden = false;
  for (const b of boxes) {
    b.closest('.pick').hidden = false;
  }
  const selected = () => boxes.filter((b) => b.checked);

  function closePanels() {
    for (const btn of toolbar.querySelectorAll('button[data-panel]')) {
      btn.setAttribute('aria-expanded', 'false');
      document.getElementById(btn.dataset.panel).hidden = true;
    }
  }

  function update() {
    const n = selected().length;
    count.textContent = `${plural(n, 'result', 'results')} selected`;
    toolbar.hidden = n === 0;
    all.checked = n > 0 && n === boxes.length;
    all.indeterminate = n > 0 && n < boxes.length;
    for (const b of boxes) {
      b.closest('.result').classList.toggle('picked', b.checked);
    }
    if (n === 0) {
      closePanels();
    }
  }

  for (const b of boxes) {
    b.addEventListener('change', update);
  }
  all.addEventListener('change', () => {
    for (const b of boxes) {
      b.checked = all.checked;
    }
    update();
  });
  document.getElementById('select-none').addEventListener('click', () => {
    for (const b of boxes) {
      b.checked = false;
    }
    update();
    say(status, '');
    all.focus();
  });

  const loaders = {
    'act-compilation': () => fillCompilations(document.getElementById('sel-compilation'), user, admin),
    'act-field': () => fillFields(),
  };
  for (const btn of toolbar.querySelectorAll('button[data-panel]')) {
    btn.addEventListener('click', async () => {
      const open = btn.getAttribute('aria-expanded') === 'true';
      closePanels();
      if (open) {
        return;
      }
      const panel = document.getElementById(btn.dataset.panel);
      btn.setAttribute('aria-expanded', 'true');
      panel.hidden = false;
      await loaders[btn.dataset.panel]();
      panel.querySelector('select').focus();
    });
  }

  // Add to a compilation: one request per selected result.
  const compForm = document.getElementById('act-compilation');
  if (compForm) {
    compForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearProblems(compForm);
      const select = compForm.elements.compilation_id;
      if (!select.value) {
        say(status, 'Choose a compilation first.', true);
        return;
      }
      const name = select.selectedOptions[0].textContent.replace(/ \(\d+ entr(y|ies)\)$/, '');
      const entries = selected().map((b) => ({ name: b.dataset.name, body: { item_id: b.value } }));
      say(status, `Adding ${plural(entries.length, 'result', 'results')} to “${name}”…`);
      const { added, failed } = await addEntries(select.value, entries);
      compilationsLoad = null;
      let text = `Added ${plural(added, 'result', 'results')} to “${name}”.`;
      if (failed.length) {
        text += ` Not added: ${failed.join('; ')}.`;
      }
      say(status, text, failed.length > 0);
    });
  }

  // Set a custom field: one bulk request for every selected result.
  const fieldForm = document.getElementById('act-field');
  let fields = [];
  async function fillFields() {
    const select = document.getElementById('sel-field');
    try {
      const body = await api('GET', '/api/data/v3/fields?limit=100');
      fields = body.fields || [];
    } catch (err) {
      select.replaceChildren(new Option(`Could not load fields: ${err.message}`, ''));
      return;
    }
    if (fields.length === 0) {
      select.replaceChildren(new Option('There are no custom fields yet', ''));
      return;
    }
    const keep = select.value;
    select.replaceChildren(...fields.map((f) => new Option(f.name, f.id)));
    if (keep && fields.some((f) => f.id === keep)) {
      select.value = keep;
    }
    valueControl();
  }
  const valueKeys = { string: 'string_value', number: 'numeric_value', bool: 'bool_value', date: 'date_value' };
  // valueControl makes the value's control fit the chosen field's type.
  function valueControl() {
    const f = fields.find((x) => x.id === fieldForm.elements.field_id.value);
    const old = document.getElementById('sel-value');
    let el;
    if (f && f.data_type === 'bool') {
      el = document.createElement('select');
      el.append(new Option('Yes', 'true'), new Option('No', 'false'));
    } else {
      el = document.createElement('input');
      el.type = { number: 'number', date: 'date' }[f && f.data_type] || 'text';
      if (el.type === 'number') {
        el.step = 'any';
      }
      el.required = true;
    }
    el.id = 'sel-value';
    el.name = 'value';
    if (old.tagName === el.tagName && old.type === el.type) {
      return;
    }
    old.replaceWith(el);
  }
  if (fieldForm) {
    fieldForm.elements.field_id.addEventListener('change', valueControl);
    fieldForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearProblems(fieldForm);
      const f = fields.find((x) => x.id === fieldForm.elements.field_id.value);
      if (!f) {
        say(status, 'Choose a field first.', true);
        return;
      }
      const raw = document.getElementById('sel-value').value;
      let value = raw;
      if (f.data_type === 'number') {
        value = Number(raw);
      } else if (f.data_type === 'bool') {
        value = raw === 'true';
      }
      const key = valueKeys[f.data_type];
      const picked = selected();
      const body = picked.map((b) => ({ item_id: b.value, fields: [{ field_id: f.id, value: { [key]: value } }] }));
      try {
        const res = await api('PUT', '/api/data/v3/fielddata', body);
        const changed = (res.changed || []).length;
        const shown = f.data_type === 'bool' ? (value ? 'yes' : 'no') : raw;
        let text = `Set “${f.name}” to “${shown}” on ${plural(changed, 'result', 'results')}.`;
        const invalid = res.invalid_items || [];
        if (invalid.length) {
          text += ` ${plural(invalid.length, 'result was', 'results were')} not changed (gone, or you may not change them).`;
        }
        if (changed) {
          text += ' The filters show the new value once the search index has it. ';
        }
        say(status, text, invalid.length > 0);
        if (changed && f.data_type === 'string') {
          const link = document.createElement('a');
          link.href = `/?f=${encodeURIComponent(`fields.${f.id}:${raw.trim()}`)}`;
          link.textContent = `Show the results whose “${f.name}” is “${raw.trim()}”`;
          status.append(link);
        }
      } catch (err) {
        if (err instanceof ApiError && Object.keys(err.fields).length) {
          // The api names the value's problem by its place in the body.
          const msg = Object.values(err.fields)[0];
          showProblems(fieldForm, new ApiError(err.status, { error: { message: `${err.message}: ${msg}`, fields: { value: msg } } }));
        } else {
          showProblems(fieldForm, err);
        }
        say(status, err.message, true);
      }
    });
  }

  // Harvest again: a harvest of each selected item (forced: its
  // extractors run again).
  const harvest = document.getElementById('act-harvest');
  if (harvest) {
    harvest.addEventListener('click', async () => {
      closePanels();
      const picked = selected();
      harvest.disabled = true;
      say(status, `Starting ${plural(picked.length, 'harvest', 'harvests')}…`);
      let started = 0;
      const failed = [];
      for (const b of picked) {
        try {
          await api('POST', '/api/control/harvest', { location_id: b.dataset.location, item_id: b.value, force: true });
          started++;
        } catch (err) {
          failed.push(`${b.dataset.name}: ${err.message}`);
        }
      }
      harvest.disabled = false;
      let text = `Started ${plural(started, 'harvest', 'harvests')}.`;
      if (failed.length) {
        text += ` Not started: ${failed.join('; ')}.`;
      }
      say(status, text, failed.length > 0);
    });
  }
  update();
}

// The moments page: a dialog that adds the chosen moment (its in and out
// points) to one of the user's compilations.
function initMoments(dialog) {
  const user = dialog.dataset.user;
  const admin = dialog.dataset.admin === '1';
  const form = dialog.querySelector('form');
  const select = form.elements.compilation_id;
  const what = document.getElementById('moment-what');
  const status = document.getElementById('moment-status');
  let moment = null;
  let opener = null;
  for (const btn of document.querySelectorAll('button.add-moment')) {
    btn.hidden = false;
    btn.addEventListener('click', async () => {
      opener = btn;
      moment = { item_id: btn.dataset.item, in_point: Number(btn.dataset.in), out_point: Number(btn.dataset.out) };
      what.textContent = `${btn.dataset.name}, ${btn.dataset.inLabel} to ${btn.dataset.outLabel}`;
      clearProblems(form);
      dialog.showModal();
      await fillCompilations(select, user, admin);
      select.focus();
    });
  }
  dialog.addEventListener('close', () => {
    if (opener) {
      opener.focus();
    }
  });
  dialog.querySelector('button.cancel').addEventListener('click', () => dialog.close());
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!select.value) {
      showProblems(form, new ApiError(400, { error: { message: 'Choose a compilation first.' } }));
      return;
    }
    const name = select.selectedOptions[0].textContent.replace(/ \(\d+ entr(y|ies)\)$/, '');
    const { added, failed } = await addEntries(select.value, [{ name: what.textContent, body: moment }]);
    compilationsLoad = null;
    if (added) {
      dialog.close();
      say(status, `Added ${what.textContent} to “${name}”.`);
    } else {
      showProblems(form, new ApiError(400, { error: { message: failed.join('; ') } }));
    }
  });
}

const ui = document.getElementById('select-ui');
if (ui) {
  initResults(ui);
}
const dialog = document.getElementById('moment-dialog');
if (dialog) {
  initMoments(dialog);
}
