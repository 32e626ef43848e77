// Launch buttons whose target is not configured yet (booktools/sphinx/launch.py turns them into
// buttons that call this): say so next to the button instead of opening a page that does not
// exist. The message is the button's tooltip, which names the _config.yml key to set.
window.formulatedNotConfigured = function (button) {
  var message = button.getAttribute("data-bs-original-title") || button.getAttribute("title") ||
    "This link is not configured yet (see _config.yml).";
  var note = document.getElementById("formulated-not-configured");
  if (!note) {
    note = document.createElement("div");
    note.id = "formulated-not-configured";
    note.setAttribute("role", "status");
    note.style.cssText = "position:fixed;top:4rem;right:1rem;max-width:22rem;z-index:2000;" +
      "padding:.75rem 1rem;border-radius:.4rem;border:1px solid #c8a600;background:#fff8d6;" +
      "color:#3d3300;font-size:.9rem;box-shadow:0 2px 8px rgba(0,0,0,.15)";
    document.body.appendChild(note);
  }
  note.textContent = message;
  note.hidden = false;
  clearTimeout(window.formulatedNotConfiguredTimer);
  window.formulatedNotConfiguredTimer = setTimeout(function () { note.hidden = true; }, 8000);
  return false;
};
