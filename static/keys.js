/* Keys a screen makes for itself, in one place for every page. */
"use strict";
const Keys = {
  // an idempotency key: one per request, sent again with every retry of it
  request() {
    const b = new Uint8Array(12); crypto.getRandomValues(b);
    return Array.from(b, x => x.toString(16).padStart(2, "0")).join("");
  },
  // a seat's or the host screen's own key (256 bits, URL-safe): sent once, kept here;
  // the server keeps only its hash and never has to send one back
  secret() {
    const b = new Uint8Array(32); crypto.getRandomValues(b);
    return btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  },
  // the tables this screen holds a key for, newest first (the first page asks which are
  // still in play: "back to your game" after a closed tab)
  held(code) {
    let list = [];
    try { list = JSON.parse(localStorage.getItem("sl-held") || "[]"); } catch (e) { /* none */ }
    list = Array.isArray(list) ? list.filter(c => typeof c === "string" && /^[A-Za-z0-9]{1,12}$/.test(c)) : [];
    if (code) localStorage.setItem("sl-held", JSON.stringify([code, ...list.filter(c => c !== code)].slice(0, 8)));
    return list;
  },
};
