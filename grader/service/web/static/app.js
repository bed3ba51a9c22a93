/* JAX Judge pages. Every write goes to the JSON API with the session's CSRF token,
   taken from the form's hidden csrf_token field; results are fragments the server
   renders (htmx), followed by server-sent events and, failing those, by polling. */
(function () {
  "use strict";
  var API = document.body.dataset.api || "/api/v1";
  var POLL_MS = 1000;

  function csrfOf(form) {
    var el = form && form.querySelector('input[name="csrf_token"]');
    return el ? el.value : "";
  }

  function send(method, path, form, body) {
    var headers = {"X-CSRF-Token": csrfOf(form)};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return fetch(API + path, {method: method, headers: headers, credentials: "same-origin",
                              body: body === undefined ? undefined : JSON.stringify(body)})
      .then(function (r) {
        return r.text().then(function (t) {
          var data = {};
          try { data = t ? JSON.parse(t) : {}; } catch (e) { data = {}; }
          return {ok: r.ok, status: r.status, data: data, retry: r.headers.get("Retry-After")};
        });
      });
  }

  // forms.js sends its requests the same way.
  window.jaxjudgeSend = send;

  function say(box, cls, text, link) {
    box.textContent = "";
    var p = document.createElement("p");
    p.className = cls;
    p.setAttribute("role", "alert");
    p.textContent = text;
    if (link) {
      var a = document.createElement("a");
      a.href = link[0];
      a.textContent = link[1];
      p.appendChild(document.createTextNode(" "));
      p.appendChild(a);
    }
    box.appendChild(p);
  }

  function refusal(r) {
    var why = (r.data && typeof r.data.detail === "string") ? r.data.detail : "";
    if (r.status === 0) return ["The judge cannot be reached; try again.", null];
    if (r.status === 401) return ["Your session has ended.", ["/login?next=" + encodeURIComponent(location.pathname), "Log in again"]];
    if (r.status === 403) return ["Refused: " + (why || "not allowed") + ". Reload the page.", null];
    if (r.status === 429 || r.status === 503) return [(why || "Busy") + (r.retry ? " Try again in " + r.retry + " s." : ""), null];
    return [why || ("Refused (" + r.status + ")."), null];
  }

  /* ---------------------------------------------------------------- times */
  /* Every time is a <time class="local"> that the server wrote in UTC ("2026-12-10 23:59
     UTC"): here it becomes the same layout in the viewer's own zone, the zone named
     ("2026-12-10 18:59 EST"), on the page and in every fragment htmx brings (the history,
     the queue). Not the locale's own layout: one format on every page, history and due
     times alike, whatever the locale. */
  var LOCAL = (function () {
    try {
      return new Intl.DateTimeFormat(undefined, {
        year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23",
        timeZoneName: "short", calendar: "gregory", numberingSystem: "latn"});
    } catch (e) { return null; }  // no Intl: the UTC the server wrote stays
  })();

  function localTime(t) {
    var part = {};
    LOCAL.formatToParts(t).forEach(function (p) { part[p.type] = p.value; });
    return part.year + "-" + part.month + "-" + part.day + " " + part.hour + ":" + part.minute + " " + part.timeZoneName;
  }

  function localTimes() {
    if (!LOCAL) return;
    Array.prototype.forEach.call(document.querySelectorAll("time.local[datetime]:not([data-zone])"), function (el) {
      var t = new Date(el.getAttribute("datetime"));
      if (isNaN(t.getTime())) return;
      el.textContent = localTime(t);
      el.dataset.zone = "local";
    });
  }
  localTimes();
  document.body.addEventListener("htmx:afterSettle", localTimes);

  /* ---------------------------------------------------------------- log in and out */
  /* The server already sends only a plain path here; this holds even if it did not,
     since the browser's own parser (which drops tabs and line breaks) decides. */
  function sameSite(next) {
    var url;
    try { url = new URL(next || "/problems", location.origin); } catch (e) { return "/problems"; }
    return url.origin === location.origin ? url.pathname + url.search + url.hash : "/problems";
  }

  var login = document.getElementById("login");
  if (login) {
    login.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var out = document.getElementById("login-error");
      out.textContent = "";
      send("POST", "/auth/login", login, {email: login.email.value, password: login.password.value}).then(function (r) {
        if (r.ok) { location.assign(sameSite(login.dataset.next)); return; }
        out.textContent = r.status === 401 ? "Wrong email or password." : refusal(r)[0];
      }, function () { out.textContent = "The judge cannot be reached; try again."; });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("form.logout"), function (f) {
    f.addEventListener("submit", function (ev) {
      ev.preventDefault();
      send("POST", "/auth/logout", f).then(function () { location.assign("/login"); });
    });
  });

  /* ---------------------------------------------------------------- following a result */
  var follow = {id: null, es: null, timer: null, polling: false};

  function panelUrl(id) { return "/submissions/" + encodeURIComponent(id) + "/panel"; }

  function refresh(id) {
    return htmx.ajax("GET", panelUrl(id), {target: "#result", swap: "innerHTML"});
  }

  function stop() {
    if (follow.es) follow.es.close();
    if (follow.timer) clearTimeout(follow.timer);
    follow.es = null; follow.timer = null;
  }

  function poll(id) {
    follow.polling = true;
    follow.timer = setTimeout(function () { follow.timer = null; refresh(id); }, POLL_MS);
  }

  function stream(id) {
    var es = new EventSource(API + "/submissions/" + encodeURIComponent(id) + "/events");
    follow.es = es;
    es.addEventListener("status", function (ev) {
      var d = JSON.parse(ev.data), cur = document.querySelector("#result [data-follow]");
      var state = d.status + ":" + (d.position == null ? "" : d.position);
      if (!cur || cur.dataset.state !== state) refresh(id);
    });
    es.addEventListener("done", function () { stop(); refresh(id); });
    es.addEventListener("timeout", function () { stop(); stream(id); });
    es.onerror = function () {  // the stream broke before "done": poll instead
      if (follow.es !== es) return;
      es.close(); follow.es = null;
      poll(id);
    };
  }

  function watch() {
    var box = document.getElementById("result");
    var el = box && box.querySelector("[data-follow]");
    if (!el) {
      var was = follow.id;
      stop(); follow.id = null; follow.polling = false;
      if (was) document.body.dispatchEvent(new Event("jj-history"));
      return;
    }
    var id = el.dataset.follow;
    if (follow.id === id && follow.es) return;  // the stream is open and will say when it changes
    if (follow.id !== id) { stop(); follow.id = id; follow.polling = false; }
    if (follow.polling || !window.EventSource) poll(id);
    else stream(id);
  }

  /* A screen reader hears the panel's one-sentence summary, not its tables. */
  function announce() {
    var status = document.getElementById("result-status");
    var panel = document.querySelector("#result .panel");
    if (!status || !panel) return;
    var said = panel.querySelector(".panel-summary") || panel.querySelector(".pending");
    status.textContent = said ? said.textContent.replace(/\s+/g, " ").trim() : "";
  }

  document.body.addEventListener("htmx:afterSettle", function (ev) {
    if (ev.detail && ev.detail.target && ev.detail.target.id === "result") { watch(); announce(); }
  });
  if (document.getElementById("result")) watch();

  /* ---------------------------------------------------------------- the editor */
  function storage() {
    try {
      var probe = "jaxjudge:probe";
      localStorage.setItem(probe, "1"); localStorage.removeItem(probe);
      return {get: function (k) { return localStorage.getItem(k); },
              set: function (k, v) { try { localStorage.setItem(k, v); } catch (e) { /* full: keep going */ } },
              remove: function (k) { localStorage.removeItem(k); }};
    } catch (e) {
      var mem = {};
      return {get: function (k) { return k in mem ? mem[k] : null; }, set: function (k, v) { mem[k] = v; },
              remove: function (k) { delete mem[k]; }};
    }
  }

  /* A short fingerprint of a source (cyrb53's two halves): what is kept of each Run's code,
     which may be 64 KiB. Not a security measure: the rule it serves is the page's own. */
  function fingerprint(text) {
    var h1 = 0xdeadbeef, h2 = 0x41c6ce57;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return ("0000000" + (h2 >>> 0).toString(16)).slice(-8) + ("0000000" + (h1 >>> 0).toString(16)).slice(-8);
  }

  var RUNS_KEPT = 100;  // per account and problem: the fingerprints of the latest Runs
  var RUN_FIRST = "Run this code first: Submit takes only code you have already Run.";

  function editor(form) {
    var pid = form.dataset.problem, who = form.dataset.user;
    var draftKey = "jaxjudge:draft:" + who + ":" + pid, runsKey = "jaxjudge:runs:" + who + ":" + pid;
    var store = storage();
    var runBtn = document.getElementById("run"), submitBtn = document.getElementById("submit");
    var why = document.getElementById("submit-why"), result = document.getElementById("result");
    var starter = document.getElementById("starter").value;
    var cm = CodeMirror.fromTextArea(document.getElementById("source"), {
      mode: "python", lineNumbers: true, indentUnit: 4, tabSize: 4, matchBrackets: true, autoCloseBrackets: true,
      styleActiveLine: true, lineWrapping: false, screenReaderLabel: "Your solution (Python)",
      extraKeys: {
        "Ctrl-Enter": function () { go("run"); }, "Cmd-Enter": function () { go("run"); },
        "Tab": function (c) {
          if (c.somethingSelected()) c.indentSelection("add");
          else c.replaceSelection(Array(c.getOption("indentUnit") + 1).join(" "), "end");
        },
        "Shift-Tab": "indentLess",
        "Esc": function (c) { c.getInputField().blur(); runBtn.focus(); }
      }
    });
    var draft = store.get(draftKey);
    if (draft !== null) cm.setValue(draft);

    /* No blind Submits: Submit takes code that has been Run, any Run of it, in this
       browser (kept across reloads and Submits) or a Run loaded from the history. Any
       other code keeps the button disabled, with the reason on it and beside it. */
    function runs() {
      try {
        var kept = JSON.parse(store.get(runsKey) || "[]");
        return Array.isArray(kept) ? kept : [];
      } catch (e) { return []; }
    }
    function wasRun(source) { return runs().indexOf(fingerprint(source)) >= 0; }
    function ran(source) {
      var f = fingerprint(source);
      var kept = runs().filter(function (x) { return x !== f; });
      kept.push(f);
      store.set(runsKey, JSON.stringify(kept.slice(-RUNS_KEPT)));
    }
    var before = "jaxjudge:ran:" + who + ":" + pid;  // where earlier pages kept the last Run's code itself
    if (store.get(before)) ran(store.get(before));
    store.remove(before);

    var busy = false, customBtn = document.getElementById("run-custom");
    function offerSubmit() {
      var ok = wasRun(cm.getValue());
      submitBtn.disabled = busy || !ok;
      submitBtn.title = ok ? "" : RUN_FIRST;
      why.textContent = RUN_FIRST;
      why.hidden = ok;
    }
    cm.on("change", function () { store.set(draftKey, cm.getValue()); cm.save(); offerSubmit(); });
    offerSubmit();

    var customBox = document.getElementById("custom-json"), customErr = document.getElementById("custom-error");
    function go(kind, input) {
      var source = cm.getValue();
      if (busy || (kind === "submit" && !wasRun(source))) return;
      busy = true; runBtn.disabled = true; submitBtn.disabled = true;
      if (customBtn) customBtn.disabled = true;
      var body = {problem: pid, source: source, kind: kind};
      if (kind === "custom") body.input = input;
      if (kind === "submit" && form.dataset.assignment) body.assignment = form.dataset.assignment;
      send("POST", "/submissions", form, body).then(function (r) {
        busy = false; runBtn.disabled = false;
        if (customBtn) customBtn.disabled = false;
        if (r.status === 202 || r.status === 200) {
          if (kind === "run") ran(source);
          offerSubmit();
          earlierFor = null;
          stop(); follow.id = null;
          refresh(r.data.id);
          document.body.dispatchEvent(new Event("jj-history"));
        } else {
          offerSubmit();
          var m = refusal(r);
          if (kind === "custom" && r.status === 422 && customErr) refused(m[0]);
          else say(result, "error", m[0], m[1]);
        }
      }, function () {
        busy = false; runBtn.disabled = false; offerSubmit();
        if (customBtn) customBtn.disabled = false;
        say(result, "error", "The judge cannot be reached; try again.");
      });
    }
    /* A refused input: every fault the judge names, one a line; and the result below,
       which is an earlier run's, said to be so. */
    var earlierFor = null;  // the submission whose panel is an earlier input's, while it stays
    function refused(text) {
      customErr.textContent = "";
      text.split(/; (?=input ')/).forEach(function (fault, i) {
        if (i) customErr.appendChild(document.createElement("br"));
        customErr.appendChild(document.createTextNode(fault));
      });
      var panel = result.querySelector(".panel");
      if (panel) { earlierFor = panel.dataset.sub; markEarlier(); }
    }
    function markEarlier() {
      var panel = result.querySelector(".panel");
      if (!panel || panel.dataset.sub !== earlierFor || panel.querySelector(".earlier")) return;
      var note = document.createElement("p");
      note.className = "note earlier";
      note.textContent = "An earlier result: the input above was refused, so nothing ran on it.";
      panel.insertBefore(note, panel.firstChild);
    }
    document.body.addEventListener("htmx:afterSettle", function (ev) {  // the earlier run's panel, refreshed
      if (earlierFor && ev.detail && ev.detail.target && ev.detail.target.id === "result") markEarlier();
    });
    if (customBtn) {
      var example = customBox.value;
      customBtn.addEventListener("click", function () {
        var input;
        customErr.textContent = "";
        try { input = JSON.parse(customBox.value); } catch (e) {
          refused("Not valid JSON: " + e.message); return;
        }
        if (input === null || typeof input !== "object" || Array.isArray(input)) {
          refused("The input is a JSON object with one entry per argument."); return;
        }
        go("custom", input);
      });
      document.getElementById("custom-reset").addEventListener("click", function () {
        customBox.value = example; customErr.textContent = "";
      });
    }
    /* A past submission back into the editor (the history's "Load" buttons). */
    document.body.addEventListener("click", function (ev) {
      var b = ev.target.closest ? ev.target.closest("button.load-source") : null;
      if (!b) return;
      send("GET", "/submissions/" + encodeURIComponent(b.dataset.sub) + "/source", form).then(function (r) {
        if (r.ok && typeof r.data.source === "string") {
          if (cm.getValue() === r.data.source || window.confirm("Replace your code with this submission's?")) {
            if (r.data.kind === "run") ran(r.data.source);  // that Run was this code's: Submit may take it
            cm.setValue(r.data.source); cm.focus(); offerSubmit();
          }
        } else say(result, "error", refusal(r)[0]);
      });
    });
    runBtn.addEventListener("click", function () { go("run"); });
    submitBtn.addEventListener("click", function () { go("submit"); });
    document.getElementById("reset").addEventListener("click", function () {
      if (window.confirm("Replace your code with the starter?")) cm.setValue(starter);
    });
    document.addEventListener("keydown", function (ev) {  // Ctrl/Cmd+Enter anywhere on the page
      if (!ev.defaultPrevented && (ev.ctrlKey || ev.metaKey) && ev.key === "Enter") { ev.preventDefault(); go("run"); }
    });
    window.jaxjudgeEditor = cm;  // for people's own scripts and the tests: the CodeMirror instance
  }
  var solution = document.getElementById("solution");
  if (solution && window.CodeMirror) editor(solution);

  /* ---------------------------------------------------------------- rejudge */
  Array.prototype.forEach.call(document.querySelectorAll("form.rejudge-form"), function (f) {
    var dialog = document.getElementById("rejudge-confirm");
    var question = document.getElementById("rejudge-question"), out = document.getElementById("rejudge-result");
    var all = false;
    Array.prototype.forEach.call(f.querySelectorAll("button[data-count]"), function (b) {
      b.addEventListener("click", function () {
        all = b.dataset.all === "true";
        var n = b.dataset.count;
        question.textContent = "This regrades " + n + " submission" + (n === "1" ? "" : "s") + " of " +
          f.dataset.problem + ". Each keeps its verdict until it is regraded. Rejudge?";
        dialog.returnValue = "";
        dialog.showModal();
      });
    });
    dialog.addEventListener("close", function () {
      if (dialog.returnValue !== "ok") return;
      var path = "/problems/" + encodeURIComponent(f.dataset.problem) + "/rejudge" + (all ? "?all=true" : "");
      send("POST", path, f).then(function (r) {
        out.textContent = r.ok ? "Requeued " + r.data.requeued + " submission" + (r.data.requeued === 1 ? "" : "s") + "."
                               : refusal(r)[0];
      });
    });
  });
})();
