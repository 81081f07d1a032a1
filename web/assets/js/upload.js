// The upload page: files dropped on the drop zone or chosen with the file
// input go to the upload store (POST /files/uploadstore/<container>/<name>,
// the multipart part "file"), one request each with its progress bar. The
// api records the item and starts its harvest; each finished file links to
// its item. Files over the platform's limit are refused before sending.

import { api, announce, upload } from './api.js';

const main = document.querySelector('main.upload');
const list = document.getElementById('uploads');
const empty = document.getElementById('uploads-empty');
const input = document.getElementById('upload-files');
const zone = document.getElementById('dropzone');
const container = document.getElementById('upload-container');
const limitNote = document.getElementById('upload-limit');
let limit = 0; // bytes; 0: none known

function size(n) {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}

// The limit and whether the store is on, from the platform summary (for
// users who may read it; the api refuses too-large files anyway).
async function readLimits() {
  if (main.dataset.summary !== '1') {
    return;
  }
  try {
    const s = await api('GET', '/api/data/summary/platform');
    const store = (s && s.offering && s.offering.uploadstore) || {};
    limit = Number(store.limit_bytes) || 0;
    limitNote.textContent = limit > 0 ? `Each file may be at most ${size(limit)}.` : 'There is no size limit for one file.';
    if (store.enabled === false) {
      document.getElementById('upload-disabled').hidden = false;
    }
  } catch {
    // The note keeps saying that the platform's limit applies.
  }
}

function link(href, text) {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  return a;
}

function segment(s) {
  return encodeURIComponent(s);
}

async function send(file) {
  const li = document.createElement('li');
  li.className = 'upload-file';
  const name = document.createElement('span');
  name.className = 'upload-name';
  name.textContent = file.name;
  const bytes = document.createElement('span');
  bytes.className = 'note';
  bytes.textContent = ` (${size(file.size)})`;
  const bar = document.createElement('progress');
  bar.max = 100;
  bar.value = 0;
  bar.setAttribute('aria-label', `Upload of ${file.name}`);
  const state = document.createElement('p');
  state.className = 'upload-state';
  li.append(name, bytes, bar, state);
  list.append(li);
  empty.hidden = true;

  if (limit > 0 && file.size > limit) {
    li.classList.add('failed');
    bar.remove();
    state.textContent = `Not sent: it is larger than the limit of ${size(limit)}.`;
    announce(`${file.name} is too large to upload.`);
    return;
  }
  const ctr = container.value.trim();
  const path = `/files/uploadstore/${ctr ? `${segment(ctr)}/` : ''}${segment(file.name)}`;
  const form = new FormData();
  form.append('file', file, file.name);
  state.textContent = 'Sending…';
  try {
    const done = await upload(path, form, (sent, total) => {
      bar.value = total > 0 ? Math.round((sent / total) * 100) : 0;
    });
    bar.value = 100;
    li.classList.add('done');
    state.textContent = 'Uploaded; its harvest has started. ';
    if (done && done.item_id) {
      state.append(link(`/items/${encodeURIComponent(done.item_id)}`, `Open ${file.name}`), ' · ');
    }
    state.append(link(`/?q=${encodeURIComponent(file.name)}`, 'Find it in search'));
    announce(`${file.name} uploaded.`);
  } catch (err) {
    li.classList.add('failed');
    bar.remove();
    let why = err.message;
    if (err.status === 413) {
      why = `Refused as too large: ${err.message}`;
    } else if (err.status === 0) {
      why = 'The upload was interrupted: the platform could not be reached. Try again.';
    }
    state.textContent = `Not uploaded. ${why}`;
    announce(`${file.name} was not uploaded.`);
  }
}

async function sendAll(files) {
  for (const f of Array.from(files)) {
    await send(f);
  }
}

if (main) {
  readLimits();
  input.addEventListener('change', () => {
    const files = Array.from(input.files);
    input.value = '';
    sendAll(files);
  });
  zone.addEventListener('dragover', (ev) => {
    ev.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (ev) => {
    ev.preventDefault();
    zone.classList.remove('over');
    if (ev.dataTransfer && ev.dataTransfer.files.length) {
      sendAll(ev.dataTransfer.files);
    }
  });
  document.getElementById('upload-form').addEventListener('submit', (ev) => ev.preventDefault());
}
