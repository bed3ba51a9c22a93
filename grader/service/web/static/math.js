/* The problem statement's scripts. Math: the server writes each formula's TeX source
   as the text of a .math element (readable as it is when scripts do not run); KaTeX
   draws it here. Hints: without scripts every hint is a closed <details>; with them,
   Hint N+1 shows once Hint N has been opened, so a learner takes them one at a time. */
(function () {
  "use strict";

  function drawMath(root) {
    if (typeof katex === "undefined") return;  // the source stays, as text
    var error = getComputedStyle(document.documentElement).getPropertyValue("--wa").trim() || "#cc0000";
    root.querySelectorAll(".math").forEach(function (el) {
      var tex = el.textContent;
      try {
        katex.render(tex, el, {displayMode: el.classList.contains("display"), throwOnError: false,
                               errorColor: error});
        el.setAttribute("data-tex", tex);
      } catch (e) {
        el.textContent = tex;  // a failure of KaTeX's own: keep the source
      }
    });
  }

  function stepHints(root) {
    root.querySelectorAll(".hints").forEach(function (box) {
      var steps = box.querySelectorAll("details.hint-step");
      steps.forEach(function (d, i) {
        var next = steps[i + 1];
        if (!next) return;
        next.hidden = !d.open;
        d.addEventListener("toggle", function () { if (d.open) next.hidden = false; });
      });
    });
  }

  var statement = document.querySelector(".statement");
  if (statement) {
    drawMath(statement);
    stepHints(statement);
  }
})();
