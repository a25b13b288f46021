// A page that follows work in the worker (an import, an export, a model test) reloads itself every two seconds
// while the work runs; a button stops the reloading for anyone who needs the page to hold still (a meta refresh
// cannot be paused). The markup is templates/_refresh.html.
(function () {
  const status = document.querySelector("[data-refresh-seconds]");
  if (!status) return;
  const timer = setTimeout(() => window.location.reload(), Number(status.dataset.refreshSeconds) * 1000);
  document.addEventListener("DOMContentLoaded", () => {
    const stop = document.getElementById("stop-refresh");
    stop.hidden = false;
    stop.addEventListener("click", () => {
      clearTimeout(timer);
      stop.hidden = true;
      status.textContent = "Updates paused: reload the page to see the progress.";
    });
  });
})();
