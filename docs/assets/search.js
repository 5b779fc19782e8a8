/* Search on the page side (search-worker.js is the worker side).
 *
 * overrides/partials/search.html loads this in the header, before Material's bundle, because the bundle
 * starts its search worker as soon as it runs:
 *  - Material starts the worker from the URL in #__config; this swaps in search-worker.js, which wraps
 *    Material's worker and fetches the full index (written by hooks/perfdocs/search.py) on first use,
 *    and tells it the page the reader is on (the worker ranks for the reader's situation);
 *  - when the search box first gets focus, the worker starts fetching that index, so that it is there by
 *    the time the reader has typed a word;
 *  - a page opened with ?h=deep+speed (a shared link, a search result of another tool) highlights
 *    "DeepSpeed" rather than every "speed": adjacent terms that are one word on the page are joined. This
 *    runs on DOMContentLoaded before Material's own listener, which is registered later, reads the URL.
 */
(() => {
  "use strict"

  const here = document.currentScript.src
  const NativeWorker = window.Worker
  let worker = null

  /* The wrapper's URL when `url` is Material's search worker, else null */
  const wrapperFor = url => {
    const element = document.getElementById("__config")
    if (element === null)
      return null
    const config = JSON.parse(element.textContent)
    const material = new URL(config.search, location.href).href
    if (new URL(url, location.href).href !== material)
      return null
    const base = new URL(config.base, location.href)
    const wrapper = new URL("search-worker.js", here)
    wrapper.searchParams.set("material", material)
    wrapper.searchParams.set("index", new URL("search/search_index.full.json", base).href)
    wrapper.searchParams.set("page", pageOf(base))
    return wrapper.href
  }

  /* The reader's page as the index names it: site-relative, "" for the home page (both URL-encoded alike) */
  const pageOf = base => {
    const path = location.pathname.replace(/index\.html$/, "")
    return path.startsWith(base.pathname) ? path.slice(base.pathname.length) : ""
  }

  if (typeof NativeWorker === "function")
    window.Worker = class extends NativeWorker {
      constructor(url, options) {
        const wrapper = wrapperFor(url)
        super(wrapper ?? url, options)
        if (wrapper !== null)
          worker = this
      }
    }

  const joinTerms = () => {
    const url = new URL(location.href)
    const highlight = url.searchParams.get("h")
    const article = document.querySelector("article")
    if (!highlight || article === null)
      return
    const onPage = new Set(article.textContent.toLowerCase().split(/[^\p{L}\p{N}_]+/u))
    const words = highlight.toLowerCase().split(/\s+/).filter(word => word.length > 0)
    const terms = []
    for (let i = 0; i < words.length; i++) {
      const joined = words[i] + (words[i + 1] ?? "")
      if (i + 1 < words.length && onPage.has(joined)) {
        terms.push(joined)
        i++
      } else {
        terms.push(words[i])
      }
    }
    if (terms.join(" ") !== words.join(" ")) {
      url.searchParams.set("h", terms.join(" "))
      history.replaceState(history.state, "", url)
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    joinTerms()
    const box = document.querySelector("[data-md-component=search-query]")
    if (box !== null)
      box.addEventListener("focus", () => worker?.postMessage({ type: "perfdocs:warm" }), { once: true })
  }, { once: true })
})()
