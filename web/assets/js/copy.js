// Copy buttons beside values shown short (checksums): the button copies
// the whole value and says so in a status line. Without script the
// buttons stay hidden; the value is in the raw data and its link.

function fallbackCopy(text) {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'vh';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch (e) {
    ok = false;
  }
  area.remove();
  return ok;
}

export function setupCopyButtons(root, status) {
  for (const button of root.querySelectorAll('button.copy[data-copy]')) {
    button.hidden = false;
    button.addEventListener('click', async () => {
      const text = button.dataset.copy;
      let ok = false;
      if (navigator.clipboard && window.isSecureContext) {
        try {
          await navigator.clipboard.writeText(text);
          ok = true;
        } catch (e) {
          ok = false;
        }
      }
      if (!ok) {
        ok = fallbackCopy(text);
      }
      if (status) {
        status.textContent = ok ? 'Copied.' : 'The browser did not allow copying; select the value in the raw data.';
      }
      button.dataset.copied = ok ? 'true' : 'false';
    });
  }
}
