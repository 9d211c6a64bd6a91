/* Every confirmation on every screen: one in-page dialog (not the browser's confirm(),
   which names the server's address and blocks the page, but where there is no <dialog>
   at all). The safe answer is focused
   first; resolves true for the first button ("yes"), false for the other, Escape or a
   tap outside. Ask({title, text, yes, no, danger, id}) → Promise<boolean>. */
"use strict";
const Ask = (() => {
  const esc = Words.esc;
  let open = null;
  return function ask({title, text = "", yes, no = T("Cancel"), danger = false, id = ""}) {
    if (open) open.close("");
    // a browser without <dialog> (Safari before 15.4, on iPads that cannot update): the
    // browser's own question, so a confirmation is never a dead button
    if (typeof HTMLDialogElement === "undefined" || !HTMLDialogElement.prototype.showModal) {
      return Promise.resolve(window.confirm(text ? `${title}\n\n${text}` : title));
    }
    const d = document.createElement("dialog");
    d.className = "ask"; d.dataset.testid = "ask"; if (id) d.dataset.ask = id;
    d.setAttribute("aria-labelledby", "ask-title");
    d.innerHTML = `<form method="dialog"><h2 id="ask-title">${esc(title)}</h2>${text ? `<p>${esc(text)}</p>` : ""}
      <div class="ask-acts"><button type="submit" value="no" data-testid="ask-no">${esc(no)}</button>
      <button type="submit" value="yes" class="${danger ? "danger" : "primary"}" data-testid="ask-yes">${esc(yes)}</button></div></form>`;
    document.body.appendChild(d);
    open = d;
    d.addEventListener("click", e => { if (e.target === d) d.close("no"); });   // the backdrop
    return new Promise(resolve => {
      d.addEventListener("close", () => { if (open === d) open = null; d.remove(); resolve(d.returnValue === "yes"); });
      d.showModal();
      d.querySelector('[value="no"]').focus();
    });
  };
})();
