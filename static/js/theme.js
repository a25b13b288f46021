// The page's theme: light, dark, or (no choice stored) whatever the system says, which the stylesheet follows by
// itself. Loaded in <head> without `defer`, so that a stored choice is on <html> before the first paint and a
// dark page never flashes white.
(function () {
  const KEY = "desirepath-theme";
  const root = document.documentElement;

  function stored() {
    try {
      return localStorage.getItem(KEY);
    } catch {
      return null; // storage refused (private window, policy): the system's theme it is
    }
  }

  function apply(choice) {
    if (choice === "light" || choice === "dark") root.dataset.theme = choice;
    else delete root.dataset.theme;
    document.dispatchEvent(new Event("desirepath:theme")); // what draws its own colours (diagrams) redraws
  }

  function remember(choice) {
    try {
      if (choice === "light" || choice === "dark") localStorage.setItem(KEY, choice);
      else localStorage.removeItem(KEY);
    } catch {
      // not remembered, but still applied to this page
    }
  }

  apply(stored());
  // Another tab changed the theme: follow it.
  window.addEventListener("storage", (event) => { if (event.key === KEY) apply(event.newValue); });

  document.addEventListener("DOMContentLoaded", () => {
    const picker = document.getElementById("theme-choice");
    if (!picker) return;
    picker.value = root.dataset.theme || "system";
    picker.addEventListener("change", () => {
      remember(picker.value);
      apply(picker.value);
    });
  });
})();
