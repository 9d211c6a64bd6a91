/* The page the service worker shows when the server cannot be reached: it asks again every
   few seconds and goes back to the page that was asked for as soon as the server answers. */
"use strict";
(() => {
  const EVERY_MS = 3000;
  let timer = null;
  async function tryAgain() {
    clearTimeout(timer);
    try {
      await fetch(location.href, {method: "HEAD", cache: "no-store"});
      location.reload();                  // any answer at all: the server is back
      return;
    } catch (e) { /* still away */ }
    timer = setTimeout(tryAgain, EVERY_MS);
  }
  document.getElementById("retry").addEventListener("click", tryAgain);
  timer = setTimeout(tryAgain, EVERY_MS);
})();
