// The jobs pages (/jobs and /jobs/{id}). Every element with data-job is a
// job's status (a row of the list, or the job page's status section): while
// any of them is unfinished, its status is read from the api every 1.5 s
// (GET /api/control/harvest?state=running on the list, and GET
// /api/control/harvest/{id} for the others) and written into the element as
// text; a polite live region says when a job finishes. The list also
// notices, every 5 s, jobs started elsewhere and offers to show them. The form on /jobs starts a
// harvest (POST /api/control/harvest) and adds its row; the job page's
// button cancels its job. Text from the api only goes in through
// textContent.
import { api, announce, showProblems, clearProblems } from './api.js';

const POLL_MS = 1500;
const MAX_POLL_MS = 30000;
const IDLE_POLL_MS = 5000; // the list with nothing running
const FINISHED = new Set(['done', 'cancelled', 'failed']);
// The labels the server gives the states (web/jobs.go jobStateLabels).
const LABELS = {
  queued: 'Queued', walking: 'Listing files', harvesting: 'Harvesting',
  done: 'Done', cancelled: 'Cancelled', failed: 'Failed',
};

function stateLabel(st) {
  if (st.state === 'done' && st.skipped) {
    return 'Skipped (walked recently)';
  }
  return LABELS[st.state] || st.state;
}

function jobElements() {
  return [...document.querySelectorAll('[data-job]')];
}

function unfinished() {
  return jobElements().filter((el) => el.dataset.job && !FINISHED.has(el.dataset.state));
}

function setText(el, selector, text) {
  const n = el.querySelector(selector);
  if (n) {
    n.textContent = String(text);
  }
}

// duration writes milliseconds as 45s, 3m 05s or 2h 03m (web/jobs.go jobDuration).
function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  const two = (n) => String(n).padStart(2, '0');
  if (s < 60) {
    return `${s}s`;
  }
  if (s < 3600) {
    return `${Math.floor(s / 60)}m ${two(s % 60)}s`;
  }
  return `${Math.floor(s / 3600)}h ${two(Math.floor(s / 60) % 60)}m`;
}

// progress is the bar's value and maximum (web/jobs.go progressOf).
function progress(st) {
  const c = st.counts || {};
  let done = (c.harvested || 0) + (c.failed || 0) + (c.skipped || 0);
  if (c.walked > 0) {
    done = Math.min(done, c.walked);
    return { value: done, max: c.walked, label: `${done} of ${c.walked} files` };
  }
  if (FINISHED.has(st.state)) {
    return { value: 1, max: 1, label: 'no files' };
  }
  return { value: null, max: 0, label: 'waiting for the listing' };
}

function showDuration(el) {
  const started = Date.parse(el.dataset.started || '');
  if (Number.isNaN(started)) {
    return;
  }
  const finished = Date.parse(el.dataset.finished || '');
  setText(el, '.job-duration', duration((Number.isNaN(finished) ? Date.now() : finished) - started));
}

// update writes a status into a job's element; it reports whether the job
// has just finished and whether its counts changed.
function update(el, st) {
  const was = el.dataset.state;
  const before = el.dataset.counts || '';
  el.dataset.state = st.state;
  el.dataset.started = st.started_at || '';
  el.dataset.finished = st.finished_at || '';
  const state = el.querySelector('.job-state');
  if (state) {
    state.textContent = stateLabel(st);
    state.className = `job-state state-${st.state}`;
  }
  const p = progress(st);
  const bar = el.querySelector('progress');
  if (bar) {
    if (p.max > 0) {
      bar.max = p.max;
      bar.value = p.value;
    } else {
      bar.removeAttribute('value');
      bar.removeAttribute('max');
    }
  }
  const c = st.counts || {};
  setText(el, '.job-files', p.label);
  setText(el, '.c-harvested', c.harvested || 0);
  setText(el, '.c-failed', c.failed || 0);
  setText(el, '.c-skipped', c.skipped || 0);
  setText(el, '.job-priority', st.priority);
  showDuration(el);
  el.dataset.counts = `${c.walked}/${c.harvested}/${c.failed}/${c.skipped}`;
  return { finishedNow: !FINISHED.has(was) && FINISHED.has(st.state), changed: before !== el.dataset.counts };
}

// showErrors writes a job's failures by extractor.
function showErrors(el, extractors) {
  const cell = el.querySelector('.job-errors');
  if (!cell) {
    return;
  }
  const failing = (extractors || []).filter((x) => x.num_errors > 0).sort((a, b) => b.num_errors - a.num_errors);
  if (!failing.length) {
    cell.textContent = 'None';
    return;
  }
  const ul = document.createElement('ul');
  ul.className = 'errlist';
  for (const x of failing) {
    const li = document.createElement('li');
    li.textContent = `${x.display_name || x.name}: ${x.num_errors}`;
    ul.append(li);
  }
  cell.replaceChildren(ul);
}

// ITEMS_PER_PAGE is the job page's page of items (web/jobs_detail.go jobItemsPerPage).
const ITEMS_PER_PAGE = 100;

// showItems refreshes the job page's first page of items while the job
// runs (a later page, or a list longer than a page, stays as it was made).
async function showItems(id) {
  const box = document.getElementById('job-items');
  if (!box || box.dataset.page !== '1') {
    return;
  }
  const res = await api('GET', `/api/data/v3/activity/request/${encodeURIComponent(id)}/items?limit=${ITEMS_PER_PAGE}`);
  const files = res.files || [];
  document.getElementById('items-count').textContent = String(res.num_files || 0);
  if (!files.length || res.num_files > ITEMS_PER_PAGE) {
    return;
  }
  const ol = document.createElement('ol');
  ol.className = 'itemlist';
  for (const f of files) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `/items/${encodeURIComponent(f.item_id)}`;
    a.textContent = f.name || f.item_id;
    li.append(a);
    ol.append(li);
  }
  box.replaceChildren(ol);
}

function jobPath(id) {
  return `/api/control/harvest/${encodeURIComponent(id)}`;
}

function describe(el) {
  const where = el.querySelector('.job-where') || document.getElementById('page-title');
  return where ? where.textContent.replace(/\s+/g, ' ').trim() : 'a job';
}

function finished(el) {
  const failed = el.querySelector('.c-failed');
  const harvested = el.querySelector('.c-harvested');
  const label = el.querySelector('.job-state');
  announce(`${describe(el)}: the job finished (${label ? label.textContent : el.dataset.state}), ` +
    `${harvested ? harvested.textContent : 0} harvested, ${failed ? failed.textContent : 0} failed.`);
  if (el.tagName !== 'TR') { // the job page: its errors in full are the server's
    const note = document.getElementById('job-finished');
    if (note) {
      note.hidden = false;
    }
    const cancel = document.getElementById('cancel-job');
    if (cancel) {
      cancel.closest('.actions').hidden = true;
    }
  }
}

const problem = document.getElementById('jobs-problem');
// The list page also looks, less often, for jobs started elsewhere (another
// person, the scheduler, the command line) and offers to show them.
const listPage = document.getElementById('job-rows') !== null;
const newJobs = document.getElementById('jobs-new');
let timer = null;
let delay = POLL_MS;
let unknown = new Set(); // running jobs not in the list at the last look
let told = 0; // how many of them the notice counted

function schedule(ms) {
  if (timer !== null) {
    return;
  }
  if (unfinished().length) {
    timer = setTimeout(poll, ms === undefined ? delay : ms);
  } else if (listPage) {
    const idle = unknown.size ? delay : Math.max(delay, IDLE_POLL_MS);
    timer = setTimeout(poll, ms === undefined ? idle : ms);
  }
}

// others tells of running jobs the list does not show, once seen twice
// (a job started from the form is in the list by then).
function others(running) {
  if (!newJobs) {
    return;
  }
  const shown = new Set(jobElements().map((el) => el.dataset.job));
  const now = running.map((j) => j.request_id).filter((id) => !shown.has(id));
  const n = now.filter((id) => unknown.has(id)).length;
  unknown = new Set(now);
  if (n > 0 && n !== told) {
    newJobs.querySelector('.jobs-new-text').textContent = n === 1 ? 'A job started elsewhere is running.' : `${n} jobs started elsewhere are running.`;
    newJobs.hidden = false;
    announce(newJobs.textContent.replace(/\s+/g, ' ').trim());
  }
  told = n;
}

async function poll() {
  timer = null;
  const open = unfinished();
  if (!open.length && !listPage) {
    return;
  }
  if (document.hidden) {
    schedule();
    return;
  }
  try {
    const statuses = new Map();
    if (listPage) {
      const list = await api('GET', '/api/control/harvest?state=running&limit=500');
      for (const j of list.jobs || []) {
        statuses.set(j.request_id, j);
      }
      others(list.jobs || []);
    }
    for (const el of open) {
      const id = el.dataset.job;
      const st = statuses.get(id) || await api('GET', jobPath(id));
      const { finishedNow, changed } = update(el, st);
      if (changed || finishedNow) {
        const ex = await api('GET', `/api/data/v3/activity/request/${encodeURIComponent(id)}/extractors`);
        showErrors(el, ex.extractors);
        if (el.tagName !== 'TR') {
          await showItems(id);
        }
      }
      if (finishedNow) {
        finished(el);
      }
    }
    delay = POLL_MS;
    if (problem) {
      problem.hidden = true;
    }
  } catch (err) {
    delay = Math.min(delay * 2, MAX_POLL_MS);
    if (problem) {
      problem.textContent = `The progress could not be read (${err.message}); trying again in ${Math.round(delay / 1000)} s.`;
      problem.hidden = false;
    }
  }
  schedule();
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden && timer !== null) {
    clearTimeout(timer);
    timer = null;
    schedule(0);
  }
});

// The start form (on /jobs, for users who may run harvests).
const form = document.getElementById('start-harvest');
if (form) {
  const loc = form.elements.location_id;
  const ctr = form.elements.container_id;
  const status = document.getElementById('start-status');
  const profileField = document.getElementById('start-profile-field');
  const extractorField = document.getElementById('start-extractors');

  // Only the containers of the chosen location are offered; a location
  // with one container has it chosen.
  const narrow = () => {
    const mine = [];
    for (const o of ctr.options) {
      if (!o.value) {
        continue;
      }
      const show = o.dataset.location === loc.value;
      o.hidden = !show;
      o.disabled = !show;
      if (show) {
        mine.push(o);
      }
    }
    if (ctr.selectedOptions.length && ctr.selectedOptions[0].disabled) {
      ctr.value = '';
    }
    if (mine.length === 1) {
      ctr.value = mine[0].value;
    }
  };
  loc.addEventListener('change', narrow);
  narrow();

  const what = () => (form.querySelector('input[name="what"]:checked') || {}).value || 'profile';
  const toggle = () => {
    const ex = what() === 'extractors';
    profileField.hidden = ex;
    extractorField.hidden = !ex;
  };
  for (const r of form.querySelectorAll('input[name="what"]')) {
    r.addEventListener('change', toggle);
  }
  toggle();

  const addRow = (id, body) => {
    const tpl = document.getElementById('job-row-template');
    const rows = document.getElementById('job-rows');
    if (!tpl || !rows) {
      return;
    }
    const tr = tpl.content.firstElementChild.cloneNode(true);
    tr.dataset.job = id;
    const link = tr.querySelector('.job-link');
    link.href = `/jobs/${encodeURIComponent(id)}`;
    link.textContent = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    setText(tr, '.job-location', loc.selectedOptions[0] ? loc.selectedOptions[0].textContent : body.location_id);
    setText(tr, '.job-container', ctr.selectedOptions[0] ? ctr.selectedOptions[0].textContent : body.container_id);
    setText(tr, '.job-priority', body.priority || 5);
    rows.prepend(tr);
    document.getElementById('jobs-wrap').hidden = false;
    document.getElementById('no-jobs').hidden = true;
  };

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearProblems(form);
    for (const alert of form.querySelectorAll('[role="alert"]')) {
      alert.remove(); // the message of the last refusal
    }
    status.textContent = '';
    const el = form.elements;
    const body = {
      location_id: loc.value,
      container_id: ctr.value,
      force: el.force.checked,
      new_extractors_only: el.new_extractors_only.checked,
      ignore_recently_walked: el.ignore_recently_walked.checked,
    };
    if (el.priority.value !== '') {
      body.priority = Number(el.priority.value);
    }
    if (what() === 'extractors') {
      body.extractors = [...form.querySelectorAll('input[name="extractor"]:checked')].map((c) => c.value);
      body.override_extractors = el.override_extractors.checked;
      if (!body.extractors.length) {
        showProblems(form, { message: 'Choose at least one extractor, or run a profile.', fields: { extractors: 'choose at least one' } });
        return;
      }
    } else if (el.profile_id.value) {
      body.profile_id = el.profile_id.value;
    }
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const res = await api('POST', '/api/control/harvest', body);
      addRow(res.request_id, body);
      const said = res.skipped ? `Nothing to do: ${res.message}` : 'The harvest has started; its progress shows in the list below.';
      status.textContent = said;
      announce(said);
      schedule(0);
    } catch (err) {
      showProblems(form, err);
    } finally {
      button.disabled = false;
    }
  });
}

// The job page's cancel button.
const cancel = document.getElementById('cancel-job');
if (cancel) {
  const section = cancel.closest('[data-job]');
  const said = document.getElementById('cancel-status');
  cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    try {
      await api('POST', `${jobPath(section.dataset.job)}/cancel`);
      said.textContent = 'Cancelled: tasks not yet started will do nothing; a file being harvested finishes.';
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      schedule(0);
    } catch (err) {
      said.textContent = `The job could not be cancelled: ${err.message}`;
      cancel.disabled = false;
    }
  });
}

for (const el of unfinished()) {
  showDuration(el);
}
schedule();
