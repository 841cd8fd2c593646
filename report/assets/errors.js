// Records every script error, unhandled rejection and Content-Security-Policy violation of
// the page in the data-errors attribute of <html>, one line each, so that a headless
// browser's DOM dump shows them. It runs first, before anything else can fail.
(function () {
  var root = document.documentElement;
  function record(line) {
    root.setAttribute("data-errors", (root.getAttribute("data-errors") || "") + line + "\n");
  }
  window.addEventListener("error", function (e) {
    var where = e.filename ? " (" + e.filename + ":" + e.lineno + ")" : "";
    var what = e.message || ("failed to load " + ((e.target && (e.target.src || e.target.href)) || "a resource"));
    record("error: " + what + where);
  }, true);
  window.addEventListener("unhandledrejection", function (e) {
    record("unhandled rejection: " + e.reason);
  });
  document.addEventListener("securitypolicyviolation", function (e) {
    record("blocked by the content security policy: " + e.violatedDirective + " " + (e.blockedURI || "inline"));
  });
})();
