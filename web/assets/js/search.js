// The search page's "Save this search": the page's own parameters (words,
// filters, sort) saved through the api under a name the user gives.
import { api, showProblems, clearProblems } from './api.js';

const form = document.getElementById('save-search');
if (form) {
  const status = document.getElementById('save-status');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearProblems(form);
    status.textContent = '';
    const name = form.elements.name.value.trim();
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      const saved = await api('POST', '/api/data/saved-searches', { name, params: form.dataset.params || '' });
      form.reset();
      status.textContent = '';
      const text = document.createTextNode(`Saved as “${saved.name}”. `);
      const link = document.createElement('a');
      link.href = '/saved';
      link.textContent = 'Your saved searches';
      status.append(text, link);
    } catch (err) {
      if (err.code === 'name_taken' && !err.fields.name) {
        err.fields = { name: err.message }; // the name is what to change
      }
      showProblems(form, err);
    } finally {
      button.disabled = false;
    }
  });
}
