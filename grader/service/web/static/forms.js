/* Forms and buttons that write through the JSON API, declared in the markup:
     <form data-api="POST /courses" data-done="reload">   named fields become the JSON body
     <button data-api="DELETE /courses/x/invitations/3" data-confirm="Revoke it?" data-done="reload">
   A field with data-number is sent as a number, one with data-bool as true or false (its
   value "true" or not), an empty one with data-optional is left out,
   and a hidden field with data-from-hash takes the text after "#" in the address (secrets
   travel there: a browser never sends it to the server, so no log holds it). data-done says
   what success does: "reload", "go:/path" (its "{field}" parts filled from the answer),
   "next" (go to the path the answer names), "link" (show the answer's link, whole, with a
   Copy button) or "roster" (one line per imported row); data-auto
   sends a form as soon as the page opens; a time field's data-utc fills it in the viewer's zone. Refusals show in the form's [role=alert] element.
   The session's CSRF token comes from the page's hidden csrf_token field (app.js sends). */
(function () {
  "use strict";

  function call(spec, body) {  // app.js's request helper: the CSRF token from the page's csrf_token field
    var parts = spec.split(" ");
    return window.jaxjudgeSend(parts[0], parts[1], document, body);
  }

  function reason(r) {
    var why = r.data && typeof r.data.detail === "string" ? r.data.detail : "";
    if (!why && Array.isArray(r.data && r.data.detail) && r.data.detail.length) {
      var d = r.data.detail[0];  // FastAPI's 422: the first field and its rule
      why = (d.loc || []).slice(1).join(".") + ": " + d.msg;
    }
    if (r.status === 429) return (why || "Too many tries") + (r.retry ? ". Try again in " + r.retry + " s." : ".");
    if (r.status === 401) return "Your session has ended: log in again.";
    return why || "Refused (" + r.status + ").";
  }

  function line(text, cls) {
    var p = document.createElement("p");
    if (cls) p.className = cls;
    p.textContent = text;
    return p;
  }

  /* A link shown once: all of it, wrapping (a one-line input cut it off), with a Copy
     button. The clipboard API needs a secure context (https, or localhost); elsewhere the
     text is selected for the viewer's own Ctrl+C. */
  function copyable(value) {
    var box = document.createElement("div"), text = document.createElement("code");
    var button = document.createElement("button"), said = document.createElement("span");
    box.className = "copy-box";
    text.className = "copy-link"; text.textContent = value; text.tabIndex = 0;  // focus selects it
    button.type = "button"; button.className = "small copy"; button.textContent = "Copy";
    said.className = "muted small copy-said"; said.setAttribute("aria-live", "polite");
    function select() {
      var range = document.createRange();
      range.selectNodeContents(text);
      var sel = window.getSelection();
      sel.removeAllRanges(); sel.addRange(range);
    }
    function fallback() {
      select();
      var copied = false;
      try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
      said.textContent = copied ? "Copied." : "Selected: press Ctrl+C (\u2318C on a Mac) to copy.";
    }
    text.addEventListener("focus", select);
    button.addEventListener("click", function () {
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(value).then(function () {
          said.textContent = "Copied."; select();
        }, fallback);
      } else {
        fallback();
      }
    });
    box.appendChild(text); box.appendChild(button); box.appendChild(said);
    return box;
  }

  function done(el, r, out) {
    var how = el.dataset.done || "reload";
    if (how === "reload") { location.reload(); return; }
    if (how.indexOf("go:") === 0) {  // "{field}" in the path: that field of the answer (a new course's slug)
      location.assign(how.slice(3).replace(/\{(\w+)\}/g, function (_, k) {
        return encodeURIComponent(r.data && r.data[k] != null ? String(r.data[k]) : "");
      }));
      return;
    }
    if (how === "next") {  // the answer names a path on this site (never another origin)
      var next = typeof r.data.next === "string" && r.data.next.charAt(0) === "/" && r.data.next.charAt(1) !== "/" &&
        r.data.next.indexOf("\\") < 0 ? r.data.next : "/courses";
      location.assign(next); return;
    }
    if (!out) return;
    out.textContent = "";
    if (how === "link" && r.data.link) {
      out.appendChild(line("Copy this link now: it is shown only once.", "note"));
      out.appendChild(copyable(r.data.link));
    } else if (how === "roster" && Array.isArray(r.data)) {
      out.appendChild(line(r.data.length + " row" + (r.data.length === 1 ? "" : "s") + " imported. " +
                           "New accounts set their password with their link (shown only once).", "note"));
      var list = document.createElement("ul");
      r.data.forEach(function (row) {
        var li = document.createElement("li");
        li.appendChild(document.createTextNode(row.email + (row.created ? " (new account) " :
                                                            row.joined ? " (joined)" : row.invited ? " (an existing account: invited, joins when they accept)" :
                                                            " (a member already)")));
        if (row.link) li.appendChild(copyable(row.link));
        list.appendChild(li);
      });
      out.appendChild(list);
    } else {
      // The answer's own sentence when it has one (it knows what happened), else the form's.
      var said = r.data && typeof r.data.detail === "string" ? r.data.detail : "";
      out.appendChild(line(said || el.dataset.doneText || "Done.", "ok-text"));
    }
  }

  function body(form) {
    var data = {}, bad = null;
    Array.prototype.forEach.call(form.querySelectorAll("input[name], select[name], textarea[name]"), function (f) {
      if (f.name === "csrf_token" || f.disabled) return;
      var v = f.dataset.fromHash !== undefined ? decodeURIComponent(location.hash.slice(1)) : f.value;
      if (f.dataset.optional !== undefined && v === "") return;
      if (f.dataset.localTime !== undefined && v) {  // the browser's own zone, sent with its offset (as UTC)
        var t = new Date(v);
        if (isNaN(t.getTime())) { bad = f.name + " is not a date and time"; return; }
        v = t.toISOString();
      }
      if (f.dataset.number !== undefined) {
        v = Number(v);
        if (!isFinite(v)) bad = f.name + " is a number";
      }
      if (f.dataset.bool !== undefined) v = v === "true";
      data[f.name] = v;
    });
    // A list of objects: each checked [data-item=NAME] row gives one, from its [data-key] fields.
    Array.prototype.forEach.call(form.querySelectorAll("[data-item]"), function (row) {
      var name = row.dataset.item, pick = row.querySelector("input[type=checkbox][data-key]");
      if (!data[name]) data[name] = [];
      if (pick && !pick.checked) return;
      var item = {};
      Array.prototype.forEach.call(row.querySelectorAll("[data-key]"), function (f) {
        item[f.dataset.key] = f.dataset.number !== undefined ? Number(f.value) : f.value;
      });
      data[name].push(item);
    });
    var pair = form.querySelector("[data-same-as]");  // "type the new password again"
    if (pair && pair.value !== form.querySelector('[name="' + pair.dataset.sameAs + '"]').value) {
      bad = "The two passwords differ.";
    }
    return bad ? {error: bad} : {data: data};
  }

  function wire(el, isForm) {
    var out = el.querySelector("[role=alert]") || document.getElementById(el.dataset.out || "");
    el.addEventListener(isForm ? "submit" : "click", function (ev) {
      ev.preventDefault();
      if (el.dataset.confirm && !window.confirm(el.dataset.confirm)) return;
      var b = isForm ? body(el) : {data: undefined};
      if (out) out.textContent = "";
      if (b.error) { if (out) out.appendChild(line(b.error, "error")); return; }
      el.setAttribute("aria-busy", "true");
      call(el.dataset.api, b.data).then(function (r) {
        el.removeAttribute("aria-busy");
        if (r.ok) done(el, r, out);
        else if (out) out.appendChild(line(reason(r), "error"));
      }, function () {
        el.removeAttribute("aria-busy");
        if (out) out.appendChild(line("The judge cannot be reached; try again.", "error"));
      });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("form[data-api]"), function (f) { wire(f, true); });
  Array.prototype.forEach.call(document.querySelectorAll("button[data-api]"), function (b) { wire(b, false); });
  /* A form that sends itself when the page opens (the LTI launch's ticket). */
  Array.prototype.forEach.call(document.querySelectorAll("form[data-api][data-auto]"), function (f) {
    if (location.hash.length > 1) f.dispatchEvent(new Event("submit", {cancelable: true}));
  });

  /* A form's time fields filled from the UTC the server wrote, in the viewer's own zone. */
  Array.prototype.forEach.call(document.querySelectorAll("input[data-utc]"), function (f) {
    var t = new Date(f.dataset.utc);
    if (isNaN(t.getTime())) return;
    var local = new Date(t.getTime() - t.getTimezoneOffset() * 60000);
    f.value = local.toISOString().slice(0, 16);
  });

  /* The join page: what the invitation is for, before anyone types. */
  var info = document.getElementById("invitation-info");
  if (info) {  // kept for this tab, so that "log in first" comes back to the same invitation
    try {
      if (location.hash.length > 1) sessionStorage.setItem("jaxjudge:invitation", location.hash);
      else if (sessionStorage.getItem("jaxjudge:invitation")) location.hash = sessionStorage.getItem("jaxjudge:invitation");
    } catch (e) { /* no storage: the link must be opened again after logging in */ }
  }
  if (info && location.hash.length > 1) {
    call("POST /invitations/check", {code: decodeURIComponent(location.hash.slice(1))}).then(function (r) {
      info.textContent = r.ok ? "An invitation to " + r.data.course + " as " + (r.data.role === "instructor" ?
        "an instructor" : "a learner") + (r.data.email_domain ? ", for addresses at " + r.data.email_domain : "") + "."
        : reason(r);
      info.className = r.ok ? "" : "error";
    });
  } else if (info) {
    info.textContent = "This link has no invitation code: open the whole link your instructor gave you.";
    info.className = "error";
  }
})();
