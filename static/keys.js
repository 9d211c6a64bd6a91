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
};
