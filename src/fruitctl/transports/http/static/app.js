// fruitctl approval page: live pending list and expiry countdowns. No framework, no build.
// Only server-rendered, server-escaped HTML is ever put into the page.
"use strict";

(function () {
  var REFRESH_MS = 3000;

  function remaining(ms) {
    if (ms <= 0) return "expired";
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
    var m = Math.floor((s % 3600) / 60), r = s % 60;
    if (d > 0) return d + "d " + h + "h";
    if (h > 0) return h + "h " + m + "m";
    if (m > 0) return m + "m " + r + "s";
    return r + "s";
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("time.countdown").forEach(function (el) {
      var at = Date.parse(el.getAttribute("datetime"));
      if (!isNaN(at)) {
        el.textContent = remaining(at - now);
        el.classList.toggle("soon", at - now < 3600 * 1000);
      }
    });
  }

  function refresh(box) {
    fetch(box.getAttribute("data-refresh"), { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (response.status === 401) {
          window.location.assign("/ui/signin");
          return null;
        }
        return response.ok ? response.text() : null;
      })
      .then(function (html) {
        if (html !== null && html !== undefined) {
          // What the person selected stays selected as the list refreshes.
          var kept = [];
          box.querySelectorAll("input.pick:checked").forEach(function (el) { kept.push(el.value); });
          box.innerHTML = html;
          box.querySelectorAll("input.pick").forEach(function (el) {
            el.checked = kept.indexOf(el.value) >= 0;
          });
          tick();
        }
      })
      .catch(function () { /* offline for a moment: try again on the next round */ });
  }

  document.addEventListener("DOMContentLoaded", function () {
    tick();
    window.setInterval(tick, 1000);
    var all = document.getElementById("select-all");
    if (all) {
      all.addEventListener("change", function () {
        document.querySelectorAll("input.pick").forEach(function (el) { el.checked = all.checked; });
      });
    }
    var box = document.querySelector("[data-refresh]");
    if (box) window.setInterval(function () { refresh(box); }, REFRESH_MS);
  });
})();
