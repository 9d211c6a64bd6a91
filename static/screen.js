/* Every page, first thing in <head>: this screen's look (the dark room or a light room) set
   before the first paint, the one control that switches it, and the service worker that
   keeps the pages' shell on the phone (only where the browser allows one: https or
   localhost; on a plain-http LAN address nothing is registered and nothing is logged). */
"use strict";
(() => {
  // the words of the control (what a tap switches to), in one place for the translators
  // (read when the buttons are drawn: by then words.js has given the page its language)
  const WORDS = () => ({
    dark: {icon: "☾", text: T("Dark"), label: T("Switch to the dark-room look")},
    light: {icon: "☀", text: T("Light"), label: T("Switch to the light look for a sunny room")},
  });
  const KEY = "sl-theme", root = document.documentElement;
  const sky = window.matchMedia ? matchMedia("(prefers-color-scheme: light)") : null;
  const stored = () => { try { return localStorage.getItem(KEY); } catch (e) { return null; } };
  const chosen = () => {
    const s = stored();
    return s === "light" || s === "dark" ? s : sky && sky.matches ? "light" : "dark";
  };

  function label() {
    const other = root.dataset.theme === "light" ? "dark" : "light";
    const buttons = document.querySelectorAll("[data-theme-toggle]");
    if (!buttons.length || typeof T !== "function") return;
    const w = WORDS()[other];
    buttons.forEach(b => {
      b.innerHTML = `<span class="ic" aria-hidden="true">${w.icon}</span> <span class="tx">${w.text}</span>`;
      b.setAttribute("aria-label", w.label);
      b.title = w.label;
      b.dataset.to = other;
    });
  }
  function apply(theme) {
    if (root.dataset.theme === theme) return;
    root.dataset.theme = theme;
    const meta = document.querySelector('meta[name="theme-color"]');
    if (meta) meta.content = getComputedStyle(root).getPropertyValue("--bg").trim() || meta.content;
    label();
    // the pages that draw with these colours (the board, the story) draw again
    document.dispatchEvent(new CustomEvent("sl-theme", {detail: theme}));
  }
  apply(chosen());
  if (sky && sky.addEventListener) sky.addEventListener("change", () => apply(chosen()));
  addEventListener("storage", e => { if (e.key === KEY) apply(chosen()); });

  document.addEventListener("DOMContentLoaded", () => {
    const meta = document.querySelector('meta[name="theme-color"]');
    if (meta) meta.content = getComputedStyle(root).getPropertyValue("--bg").trim() || meta.content;
    label();
  });
  document.addEventListener("click", e => {
    const b = e.target.closest && e.target.closest("[data-theme-toggle]");
    if (!b) return;
    const next = root.dataset.theme === "light" ? "dark" : "light";
    try { localStorage.setItem(KEY, next); } catch (err) { /* a private window: this page only */ }
    apply(next);
  });

  // the shell on the phone: assets from its cache, pages from the server (a "reconnecting"
  // page when it cannot be reached), the game's state never from a cache
  if (window.isSecureContext && "serviceWorker" in navigator) {
    // a new version of the companion replaced the worker that served this page its
    // scripts and styles (the old ones): the page loads once more, with the new ones.
    // Never on the first visit, when the first worker takes the page over
    const had = !!navigator.serviceWorker.controller;
    let again = false;
    navigator.serviceWorker.addEventListener("controllerchange", () => {
      if (had && !again) { again = true; location.reload(); }
    });
    addEventListener("load", () => {
      // …and a page it serves asks at once whether there is a new one (the browser's own
      // look, after a navigation, may come later or not at all)
      navigator.serviceWorker.register("/sw.js", {scope: "/"})
        .then(r => { if (had) return r.update(); }).catch(() => {});
    });
  }
})();
