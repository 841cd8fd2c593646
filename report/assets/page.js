// The status filter: buttons show the artifacts of one status (and dim the others in the
// graph); #show=STATUS in the address opens the page filtered. Without scripts the page
// shows everything and the filter stays hidden.
(function () {
  var root = document.documentElement;
  var nav = document.getElementById("filter");
  var articles = document.querySelectorAll("article.artifact");
  var nodes = document.querySelectorAll("#graph g.node");
  var buttons = nav.querySelectorAll("button");
  var known = {all: true};
  buttons.forEach(function (b) { known[b.getAttribute("data-show")] = true; });
  function show(status) {
    if (!known[status]) {
      status = "all";
    }
    articles.forEach(function (a) {
      a.hidden = status !== "all" && a.getAttribute("data-status") !== status;
    });
    nodes.forEach(function (n) {
      n.classList.toggle("dim", status !== "all" && n.getAttribute("data-status") !== status);
    });
    buttons.forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-show") === status));
    });
    root.setAttribute("data-show", status);
  }
  nav.addEventListener("click", function (e) {
    var b = e.target.closest("button");
    if (b) {
      show(b.getAttribute("data-show"));
    }
  });
  var m = /^#show=([a-z]+)$/.exec(location.hash);
  show(m ? m[1] : "all");
  nav.hidden = false;
  root.setAttribute("data-ready", "1");
})();
