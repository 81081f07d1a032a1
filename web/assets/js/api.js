// The pages' one way to change something: a request to the JSON API with
// the session cookie and the session's CSRF token (the page's
// <meta name="csrf-token">), so that every action has the api's
// validation, scopes and audit events. Errors come back as ApiError with
// the api's code, message and per-field problems; showProblems puts them
// beside a form's fields. No library: plain DOM and fetch.

export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `the request failed (${status})`);
    this.status = status;
    this.code = e.code || '';
    this.fields = e.fields || {};
  }
}

export function csrfToken() {
  const m = document.querySelector('meta[name="csrf-token"]');
  return m ? m.content : '';
}

function headers(extra) {
  return Object.assign({ 'X-CSRF-Token': csrfToken(), Accept: 'application/json' }, extra || {});
}

async function parse(res) {
  const text = await res.text();
  let body = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  if (!res.ok) {
    throw new ApiError(res.status, body);
  }
  return body;
}

// api sends method path with body as JSON (none when undefined) and
// returns the parsed answer; a non-2xx answer throws ApiError.
export async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: headers() };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError(0, { error: { code: 'network', message: 'The platform could not be reached. Check the connection and try again.' } });
  }
  return parse(res);
}

// upload posts form data (a file) with progress: onProgress(sent, total).
export function upload(path, formData, onProgress) {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open('POST', path);
    x.withCredentials = true;
    const h = headers();
    for (const k of Object.keys(h)) {
      x.setRequestHeader(k, h[k]);
    }
    x.upload.onprogress = (e) => {
      if (onProgress && e.lengthComputable) {
        onProgress(e.loaded, e.total);
      }
    };
    x.onload = () => {
      let body = null;
      try {
        body = x.responseText ? JSON.parse(x.responseText) : null;
      } catch {
        body = null;
      }
      if (x.status >= 200 && x.status < 300) {
        resolve(body);
      } else {
        reject(new ApiError(x.status, body));
      }
    };
    x.onerror = () => reject(new ApiError(0, { error: { code: 'network', message: 'The upload was interrupted.' } }));
    x.send(formData);
  });
}

// clearProblems removes what showProblems put in form.
export function clearProblems(form) {
  for (const el of form.querySelectorAll('.problem[data-made]')) {
    el.remove();
  }
  for (const el of form.querySelectorAll('[aria-invalid]')) {
    el.removeAttribute('aria-invalid');
    el.removeAttribute('aria-describedby');
  }
}

// showProblems shows err in form: each field's problem after the control
// of that name (marked aria-invalid and described by it), and the message
// in the form's [role=alert] element (made when missing). Text only.
export function showProblems(form, err) {
  clearProblems(form);
  let n = 0;
  const fields = (err && err.fields) || {};
  for (const name of Object.keys(fields)) {
    const control = form.querySelector(`[name="${CSS.escape(name)}"]`) || form.querySelector(`[data-field="${CSS.escape(name)}"]`);
    if (!control) {
      continue;
    }
    const p = document.createElement('p');
    p.className = 'problem';
    p.dataset.made = '1';
    p.id = `${form.id || 'form'}-problem-${n++}`;
    p.textContent = fields[name];
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', p.id);
    control.insertAdjacentElement('afterend', p);
  }
  let alert = form.querySelector('[role="alert"]');
  if (!alert) {
    alert = document.createElement('p');
    alert.setAttribute('role', 'alert');
    alert.className = 'problem';
    form.prepend(alert);
  }
  alert.textContent = (err && err.message) || String(err);
}

// announce says text in the page's polite live region (made when missing).
export function announce(text) {
  let live = document.getElementById('announce');
  if (!live) {
    live = document.createElement('p');
    live.id = 'announce';
    live.className = 'vh';
    live.setAttribute('aria-live', 'polite');
    document.body.append(live);
  }
  live.textContent = text;
}

// formJSON is a form's named controls as an object: numbers for
// type=number, booleans for checkboxes, and empty text left out.
export function formJSON(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name || el.disabled) {
      continue;
    }
    if (el.type === 'checkbox') {
      out[el.name] = el.checked;
    } else if (el.type === 'number') {
      if (el.value !== '') {
        out[el.name] = Number(el.value);
      }
    } else if (el.type === 'radio') {
      if (el.checked) {
        out[el.name] = el.value;
      }
    } else if (el.value !== '') {
      out[el.name] = el.value;
    }
  }
  return out;
}
