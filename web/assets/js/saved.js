// The saved searches page: rename and delete through the api; the list
// changes in place and the status line says what happened.
import { api, showProblems, clearProblems } from './api.js';

const status = document.getElementById('saved-status');

function say(text, problem) {
  status.textContent = text;
  status.classList.toggle('problem', !!problem);
}

for (const form of document.querySelectorAll('form.rename')) {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearProblems(form);
    const id = form.dataset.id;
    const input = form.elements.name;
    try {
      const saved = await api('PATCH', `/api/data/saved-searches/${encodeURIComponent(id)}`, { name: input.value });
      const item = document.getElementById(`saved-${id}`);
      const title = item.querySelector('h2 a') || item.querySelector('h2');
      title.textContent = saved.name;
      input.value = saved.name;
      for (const vh of item.querySelectorAll('.vh')) {
        vh.textContent = ` ${saved.name}`;
      }
      const del = item.querySelector('button.delete');
      if (del) {
        del.dataset.name = saved.name;
      }
      say(`Renamed to “${saved.name}”.`);
    } catch (err) {
      if (err.code === 'name_taken' && !err.fields.name) {
        err.fields = { name: err.message }; // the name is what to change
      }
      showProblems(form, err);
      say(err.message, true);
    }
  });
}

for (const button of document.querySelectorAll('button.delete')) {
  button.addEventListener('click', async () => {
    const id = button.dataset.id;
    const name = button.dataset.name;
    button.disabled = true;
    try {
      await api('DELETE', `/api/data/saved-searches/${encodeURIComponent(id)}`);
      const item = document.getElementById(`saved-${id}`);
      const list = item.parentElement;
      item.remove();
      if (!list.querySelector('li')) {
        list.remove();
        document.getElementById('saved-empty').hidden = false;
      }
      say(`Deleted “${name}”.`);
      document.getElementById('page-title').focus();
    } catch (err) {
      button.disabled = false;
      say(err.message, true);
    }
  });
}
