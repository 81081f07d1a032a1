// Custom fields on the item page: Set sends the control's value with the
// one key of the field's type, Clear deletes the value; the api's errors
// show beside the control, and the control keeps what was typed.

import { api, announce, clearProblems, showProblems } from './api.js';

const keys = { string: 'string_value', number: 'numeric_value', bool: 'bool_value', date: 'date_value' };

// value reads the control as the field's type wants it; undefined: no
// value to send (an empty text box).
function value(form) {
  const input = form.querySelector('[name="value"]');
  switch (form.dataset.type) {
    case 'bool':
      return input.checked;
    case 'number':
      return input.value === '' ? undefined : Number(input.value);
    default:
      return input.value === '' ? undefined : input.value;
  }
}

function path(itemId, form) {
  return `/api/data/v3/fielddata/${encodeURIComponent(itemId)}/field/${encodeURIComponent(form.dataset.fieldId)}`;
}

function done(form, text, has) {
  clearProblems(form);
  const alert = form.querySelector('[role="alert"]');
  if (alert) {
    alert.remove();
  }
  const state = form.querySelector('.field-state');
  if (state) {
    state.textContent = text;
  }
  const clear = form.querySelector('.field-clear');
  if (clear) {
    clear.hidden = !has;
  }
}

// problem shows the api's error in form, its field problems beside the
// value's control (the api names them after its body's keys).
function problem(form, err) {
  const fields = Object.values((err && err.fields) || {});
  showProblems(form, { message: err.message, fields: fields.length ? { value: fields.join('; ') } : {} });
  announce(err.message);
}

function init() {
  const main = document.getElementById('item');
  const section = document.getElementById('fields');
  if (!main || !section) {
    return;
  }
  const itemId = main.dataset.itemId;
  const name = (form) => (form.querySelector('label').firstChild.textContent || '').trim();
  section.addEventListener('submit', async (ev) => {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('field-form')) {
      return;
    }
    ev.preventDefault();
    const v = value(form);
    if (v === undefined) {
      showProblems(form, { message: 'Type a value first, or use Clear to remove the value.', fields: { value: 'is empty' } });
      return;
    }
    try {
      await api('PUT', path(itemId, form), { [keys[form.dataset.type]]: v });
      done(form, `Set: ${name(form)}`, true);
    } catch (err) {
      problem(form, err);
    }
  });
  section.addEventListener('click', async (ev) => {
    const button = ev.target instanceof Element ? ev.target.closest('button.field-clear') : null;
    if (!button) {
      return;
    }
    const form = button.closest('form');
    try {
      await api('DELETE', path(itemId, form));
      const input = form.querySelector('[name="value"]');
      if (input.type === 'checkbox') {
        input.checked = false;
      } else {
        input.value = '';
      }
      done(form, `Cleared: ${name(form)}`, false);
      form.querySelector('[name="value"]').focus();
    } catch (err) {
      problem(form, err);
    }
  });
}

init();
