// Runs before the first paint (a classic script in <head>) so that a dark
// desk never flashes light while the modules load.
(function () {
  try {
    var theme = localStorage.getItem('desk.theme');
    if (theme === 'light' || theme === 'dark' || theme === 'system') {
      document.documentElement.setAttribute('data-theme', theme);
    }
  } catch (e) {
    // Storage can be off (private windows); the system theme is fine then.
  }
})();
