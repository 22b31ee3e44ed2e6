// Copy buttons: <button data-copy="element-id"> copies that element's text. The pages work
// without it (the text can be selected by hand).
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var source = document.getElementById(button.getAttribute("data-copy"));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    var label = button.textContent;
    button.textContent = "Copied";
    setTimeout(function () { button.textContent = label; }, 1500);
  });
});

// The API explorer on /docs: each operation's "Try it" form calls this server's API with
// the key typed at the top of the page (kept in the page only) and shows the status, the
// metering headers and the body, with the curl line of the same call. Without scripts the
// forms stay hidden and the page is the reference alone.
(function () {
  var keyForm = document.getElementById("try-key-form");
  if (!keyForm) return;
  keyForm.hidden = false;
  keyForm.addEventListener("submit", function (event) { event.preventDefault(); });
  document.querySelectorAll("form.try").forEach(function (form) { form.hidden = false; });
  var shown = ["x-request-id", "x-credits-charged", "x-credits-remaining",
    "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"];
  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form.try");
    if (!form) return;
    event.preventDefault();
    var path = form.getAttribute("data-path");
    var query = [];
    form.querySelectorAll("input[data-in]").forEach(function (input) {
      var value = input.value.trim();
      if (input.getAttribute("data-in") === "path") {
        path = path.split("{" + input.name + "}").join(encodeURIComponent(value));
      } else if (value !== "") {
        query.push(encodeURIComponent(input.name) + "=" + encodeURIComponent(value));
      }
    });
    var url = path + (query.length ? "?" + query.join("&") : "");
    var headers = {};
    var withKey = form.getAttribute("data-key") === "true";
    var key = document.getElementById("try-key").value.trim();
    if (withKey && key) headers["Authorization"] = "Bearer " + key;
    var answer = form.querySelector(".try-answer");
    var status = form.querySelector(".try-status");
    answer.hidden = false;
    status.textContent = "Sending…";
    form.querySelector(".try-curl").textContent = "curl " +
      (withKey ? "-H \"Authorization: Bearer $FORUMDEX_API_KEY\" " : "") +
      "\"" + location.origin + url + "\"";
    fetch(url, { headers: headers, credentials: "omit" }).then(function (response) {
      return response.text().then(function (text) {
        status.textContent = response.status + " " + response.statusText;
        form.querySelector(".try-headers").textContent = shown
          .filter(function (name) { return response.headers.has(name); })
          .map(function (name) { return name + ": " + response.headers.get(name); })
          .join("\n");
        var body = text;
        try { body = JSON.stringify(JSON.parse(text), null, 2); } catch (ignored) {}
        form.querySelector(".try-body").textContent = body;
      });
    }, function (error) {
      status.textContent = "The request failed: " + error;
    });
  });
})();
