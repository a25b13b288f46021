// An import's page shows its progress by reloading itself every two seconds while the import runs; a button stops
// the reloading for anyone who needs the page to hold still (a page that reloads on its own cannot be paused).
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
