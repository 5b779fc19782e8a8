/* The site's search worker: Material's own worker (lunr, its tokenizer and highlighter), with
 *  - the index fetched on the first query (or when search.js says the search box got focus), not on
 *    every page load: the theme only fetches the stub that hooks/perfdocs/search.py leaves in its place;
 *  - the query rewritten the way readers type: stop words dropped ("fsdp or deepspeed" is about FSDP and
 *    DeepSpeed, not "order"), words of one or two letters matched whole ("tp" is not "tpu"), longer words
 *    matched as prefixes (as Material does), and two adjacent words also tried as one ("deep speed" finds
 *    DeepSpeed, and only "deepspeed" is highlighted on the page it leads to);
 *  - sections that hold the words as typed ("out of memory", stop words included) ranked first.
 *
 * search.js starts it as search-worker.js?material=<Material's worker>&index=<full index>. Material's
 * worker is loaded with importScripts; its message listener is kept and called with rewritten messages,
 * and its replies are caught on their way back. Messages follow Material's protocol (SearchMessageType):
 * 0 setup, 1 ready, 2 query, 3 result; a result also says which query it answers (data.query), which
 * Material ignores and tests/browser/test_search.py waits for.
 */
"use strict"

const SETUP = 0
const READY = 1
const QUERY = 2
const RESULT = 3
const WARM = "perfdocs:warm"           // from search.js: the reader is about to search
const SHORT = 2                        // words this long or shorter are matched whole, not as prefixes
const COMPOUND_BOOST = 3               // "deep speed" -> "deepspeed*^3": the joined word counts more
const ADVANCED = /["*~^]|(^|\s)[+-]\S|\b(title|text|tags):/  // lunr syntax: handed to Material as typed

const params = new URL(self.location.href).searchParams
const nativeAdd = self.addEventListener.bind(self)
const nativePost = self.postMessage.bind(self)

/* Load Material's worker, keeping its message listener instead of registering it */
let material = null
self.addEventListener = (type, listener, options) => {
  if (type === "message" && material === null)
    material = listener
  else
    nativeAdd(type, listener, options)
}
importScripts(params.get("material"))
self.addEventListener = nativeAdd

/* Material's replies go to whoever asked, in order */
const waiting = []
self.postMessage = message => {
  const resolve = waiting.shift()
  if (resolve)
    resolve(message)
  else
    nativePost(message)
}
function ask(message) {
  return new Promise(resolve => {
    waiting.push(resolve)
    material({ data: message })
  })
}

let setup = null                       // the setup message from the page: configuration and options
let loading = null                     // the full index, fetched and handed to Material once
let latest = null                      // the query typed last: earlier ones still waiting are dropped
const documents = new Map()            // location -> section (location, title, text) of the full index

function load() {
  if (loading === null) {
    const url = params.get("index")
    loading = (setup.data.docs.length
      ? Promise.resolve(setup.data)    // the page sent a full index (no stub): use it
      : fetch(url).then(response => {
          if (!response.ok)
            throw new Error(`${url}: HTTP ${response.status}`)
          return response.json()
        }))
      .then(index => {
        for (const doc of index.docs)
          documents.set(doc.location, doc)
        return ask({
          type: SETUP,
          data: { config: index.config, docs: index.docs, options: setup.data.options }
        })
      })
    loading.catch(() => { loading = null })  // the next query tries again
  }
  return loading
}

/* The query as lunr clauses, and the joined words tried for adjacent pairs */
function rewrite(value) {
  if (ADVANCED.test(value))
    return { query: value, compounds: new Map(), phrase: null }
  const words = wordsOf(value)
  const clauses = []
  const compounds = new Map()
  for (let i = 0; i < words.length; i++) {
    const word = words[i]
    if (isStopWord(word))
      continue
    clauses.push(word.length <= SHORT ? `${word}^1` : word)  // a boost (of 1) keeps Material from adding *
    const next = words[i + 1]
    if (next !== undefined && !isStopWord(next)) {
      compounds.set(word + next, [word, next])
    }
  }
  for (const joined of compounds.keys())
    clauses.push(`${joined}*^${COMPOUND_BOOST}`)
  return { query: clauses.join(" "), compounds, phrase: words.length > 1 ? words.join(" ") : null }
}

/* Lowercase words, split as the index splits them */
function wordsOf(text) {
  const separator = new RegExp(setup.data.config.separator)
  return text.toLowerCase().split(/\s+/)
    .flatMap(part => part.split(separator))
    .filter(word => word.length > 0)
}

/* A section's title and text as strings of words. The text is the index's own HTML, which
 * hooks/perfdocs/search.py writes with a few bare tags (p, code, li...) and escaped text, and a worker
 * has no HTML parser: tags become spaces and the four escapes are undone. */
const plain = new Map()
function wordsIn(location) {
  if (!plain.has(location)) {
    const doc = documents.get(location) ?? { title: "", text: "" }
    const words = html => wordsOf(html.replace(/<[^>]*>/g, " ")
      .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&"))
    const text = words(doc.text)
    plain.set(location, { title: ` ${words(doc.title).join(" ")}`, text: ` ${text.join(" ")}`, count: text.length })
  }
  return plain.get(location)
}

function isStopWord(word) {
  return typeof lunr.stopWordFilter === "function" && lunr.stopWordFilter(word) === undefined
}

/* What a result highlights (Material puts these terms in the link's ?h=): a joined word that matched
 * stands for its parts; one that did not is no missing term, it was never typed */
function terms(result, compounds) {
  for (const item of result.items.flat())
    for (const [joined, parts] of compounds)
      if (item.terms[joined])
        for (const part of parts)
          delete item.terms[part]
      else
        delete item.terms[joined]
  return result
}

/* The order of the results, by tiers: sections with the words typed, in that order (the last one may
 * be half typed), in their title; then with them in their text, densest first (a section about it, not
 * one that mentions it once among a hundred parameters); then sections that match every word; then the
 * rest. Within a tier Material's score decides. Scores are raised to match, so that Material's
 * Enter-goes-to-the-best-score and its fold of weaker sections under "more results" agree. */
function rank(result, phrase) {
  const items = result.items.flat().filter(item => Object.keys(item.terms).length > 0)
  const top = Math.max(1, ...items.map(item => item.score))
  const needle = ` ${phrase}`
  for (const item of items) {
    const { title, text, count } = wordsIn(item.location)
    if (phrase !== null && title.includes(needle))
      item.score += 7 * top
    else if (phrase !== null && text.includes(needle))
      item.score = 4 * top + 2 * top * Math.min(1, (text.split(needle).length - 1) / count)
    else if (Object.values(item.terms).every(Boolean))
      item.score += 2 * top
  }
  for (const group of result.items)
    group.sort((a, b) => b.score - a.score)
  result.items.sort((a, b) => b[0].score - a[0].score)
  return result
}

/* Queries are answered one after the other, in the order typed; one that a later query has replaced
 * by the time its turn comes is skipped (the reader typed on while the index loaded) */
let queue = Promise.resolve()
function search(value) {
  latest = value
  const { query, compounds, phrase } = rewrite(value)
  const replaced = () => value !== latest
  queue = queue.then(async () => {
    await new Promise(resolve => setTimeout(resolve))  // let queries already sent arrive first
    if (replaced())
      return
    if (!query.trim())
      return nativePost({ type: RESULT, data: { items: [], query: value } })
    try {
      await load()
    } catch (err) {
      console.warn(`perfdocs search: the index did not load: ${err}`)
      return nativePost({ type: RESULT, data: { items: [], query: value } })
    }
    if (replaced())
      return
    const reply = await ask({ type: QUERY, data: query })
    nativePost({ type: RESULT, data: { ...rank(terms(reply.data, compounds), phrase), query: value } })
  }).catch(err => {                    // a failed query must not stop the ones after it
    console.error(`perfdocs search: ${value}: ${err}`)
    nativePost({ type: RESULT, data: { items: [], query: value } })
  })
}

nativeAdd("message", ev => {
  const message = ev.data
  switch (message.type) {
    case SETUP:
      setup = message
      nativePost({ type: READY })      // the index is fetched when the reader first searches
      break
    case WARM:
      if (setup !== null)
        load().catch(() => undefined)
      break
    case QUERY:
      search(message.data)
      break
    default:
      throw new TypeError(`perfdocs search: unknown message ${JSON.stringify(message)}`)
  }
})
