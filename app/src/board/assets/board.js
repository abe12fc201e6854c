// The board's one script, embedded in the binary and allowed by the page's policy
// (script-src 'self'); the pages work without it. It lets Escape hide a claim's explanation
// shown by focus, and disables a form's button while the request runs (re-index can take a
// moment), saying so to screen readers.
"use strict";
document.addEventListener("submit", (event) => {
  const button = event.target.querySelector("button[type=submit]");
  if (button) {
    button.setAttribute("aria-busy", "true");
    button.textContent = button.textContent + "…";
  }
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && document.activeElement && document.activeElement.closest(".claim")) {
    document.activeElement.blur();
  }
});
