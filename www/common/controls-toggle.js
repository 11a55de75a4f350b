// Small screens: a view's controls fold under one button. At ≤ 640 px the chart comes first (style.css) and the
// controls below it start folded; the button (first in the view's sidebar, hidden on wider screens) unfolds
// them. Mounted by app.js on every view; the view's own code is untouched.

import { h } from './dom.js';

/**
 * Add the fold button to the sidebar of the view in `root` (`.layout > .sidebar`); no-op without one.
 * @param {HTMLElement} root the view's element
 * @param {string} id the model id (for the button's id)
 */
export function foldControls(root, id) {
  const sidebar = root.querySelector('.layout > .sidebar');
  if (!sidebar || sidebar.querySelector('.controls-toggle')) return;
  const narrow = window.matchMedia('(max-width: 640px)').matches;
  const btn = h('button', {
    type: 'button', class: 'btn controls-toggle', id: `controls-toggle-${id}`, 'aria-expanded': narrow ? 'false' : 'true',
    onclick: () => {
      const open = btn.getAttribute('aria-expanded') !== 'true';
      btn.setAttribute('aria-expanded', String(open));
      sidebar.classList.toggle('folded', !open);
      btn.textContent = open ? 'Hide the controls' : 'Show the controls';
    },
  }, narrow ? 'Show the controls' : 'Hide the controls');
  sidebar.classList.toggle('folded', narrow);
  sidebar.prepend(btn);
}
