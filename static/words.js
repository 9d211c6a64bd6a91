/* The page's words in its language: the server puts this language's catalog of the
   scripts' words in <script id="words"> (gettext's js domain, key = the English text).
   T(key, params) and TN(one, many, n, params) look a key up and fill it in;
   {side!c} starts a value with a capital, as on the server. */
"use strict";
const Words = (() => {
  const lang = document.documentElement.lang || "en";
  let words = {};
  try { words = JSON.parse(document.getElementById("words").textContent || "{}"); } catch (e) { /* English */ }
  // which plural form: French counts 0 and 1 as one; English, Dutch, German only 1
  const form = n => (lang === "fr" ? n > 1 : n !== 1) ? 1 : 0;
  const fill = (text, params) => text.replace(/\{(\w+)(!c)?\}/g, (all, k, c) => {
    if (!params || !(k in params)) return all;
    const v = String(params[k]);
    return c ? v.charAt(0).toUpperCase() + v.slice(1) : v;
  });
  function T(key, params) {
    const w = words[key];
    return fill(typeof w === "string" && w ? w : Array.isArray(w) ? w[0] : key, params);
  }
  function TN(one, many, n, params) {
    const w = words[one], i = form(n);
    const text = Array.isArray(w) && w[i] ? w[i] : i ? many : one;
    return fill(text, {n, ...(params || {})});
  }
  // a share out of 100 as the language writes it: 62%, 62 % in French and German
  let percent = n => n + "%";
  try {
    const f = new Intl.NumberFormat(lang, {style: "percent", maximumFractionDigits: 0});
    percent = n => f.format(n / 100);
  } catch (e) { /* a browser without Intl: 62% */ }
  // a label before its value: "Intel card:", "Carte de renseignement :" (French puts a
  // narrow space before a colon)
  const colon = label => label + (lang === "fr" ? "\u202f:" : ":");
  // a refusal's words (the API says them in lower case, to follow "error:") as a sentence
  // of its own in a message: a capital first, a full stop last
  const said = s => s ? s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?…]$/.test(s) ? "" : ".") : s;
  // a sentence put before a colon ("Undo: … red's fort: waiting for …"): its full stop
  // dropped, not "fort.:"
  const clause = s => String(s).replace(/\s*\.$/, "");
  // text made safe to put into HTML (every page's one escaping)
  const esc = s => String(s).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  return {lang, T, TN, percent, colon, said, clause, esc};
})();
const {T, TN} = Words;
