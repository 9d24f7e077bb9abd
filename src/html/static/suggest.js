// The front page's search box suggests as one types (an ARIA combobox: the
// input owns a listbox of options; arrows move through them, Enter opens the
// one chosen, Escape closes the list). Without this script the box is a plain
// search of the specimen list.
(function () {
  "use strict";
  var input = document.getElementById("find");
  var list = document.getElementById("find-options");
  if (!input || !list) return;
  var items = [];
  var active = -1;
  var asked = 0;
  var timer = null;

  function close() {
    list.hidden = true;
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function choose(at) {
    var options = list.children;
    if (active >= 0 && options[active]) options[active].setAttribute("aria-selected", "false");
    active = at;
    if (at >= 0 && options[at]) {
      options[at].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", options[at].id);
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function show(found) {
    items = found;
    list.textContent = "";
    found.forEach(function (item, i) {
      var option = document.createElement("li");
      option.id = "find-option-" + i;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      var label = document.createElement("span");
      label.textContent = item.label;
      option.appendChild(label);
      var about = document.createElement("small");
      about.textContent = item.kind.replace(/-/g, " ") +
        (item.matched !== item.label ? " · " + item.matched : "") +
        " · " + item.count;
      option.appendChild(about);
      option.addEventListener("mousedown", function (e) {
        e.preventDefault();
        window.location.href = item.url;
      });
      list.appendChild(option);
    });
    active = -1;
    list.hidden = found.length === 0;
    input.setAttribute("aria-expanded", found.length ? "true" : "false");
  }

  function ask() {
    var q = input.value;
    if (q.trim() === "") { close(); return; }
    var mine = ++asked;
    fetch(list.getAttribute("data-source") + "?limit=8&q=" + encodeURIComponent(q),
      { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : { items: [] }; })
      .then(function (body) { if (mine === asked) show(body.items); })
      .catch(function () { if (mine === asked) close(); });
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(ask, 120);
  });
  input.addEventListener("keydown", function (e) {
    var open = !list.hidden && items.length > 0;
    if (e.key === "ArrowDown" && open) {
      e.preventDefault();
      choose((active + 1) % items.length);
    } else if (e.key === "ArrowUp" && open) {
      e.preventDefault();
      choose(active <= 0 ? items.length - 1 : active - 1);
    } else if (e.key === "Enter" && open && active >= 0) {
      e.preventDefault();
      window.location.href = items[active].url;
    } else if (e.key === "Escape" && open) {
      e.preventDefault();
      close();
    }
  });
  input.addEventListener("blur", close);
})();
