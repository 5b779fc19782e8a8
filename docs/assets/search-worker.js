/* The site's search worker: Material's own worker (lunr, its tokenizer and highlighter), with
 *  - the index fetched on the first query (or when search.js says the search box got focus), not on
 *    every page load: the theme only fetches the stub that hooks/perfdocs/search.py leaves in its place;
 *  - the query read the way readers type: stop words dropped ("fsdp or deepspeed" is about FSDP and
 *    DeepSpeed, not "order"), words of one or two letters matched whole ("tp" is not "tpu"), longer words
 *    matched as prefixes (as Material does), two adjacent words also tried as one ("deep speed" finds
 *    DeepSpeed, and only "deepspeed" is highlighted on the page it leads to), a reader's spelling of a
 *    term also as the guide's ("zero3" is ZeRO-3, "oom" is "out of memory": the synonym table,
 *    hooks/perfdocs/search_synonyms.py), and words that name the reader's situation ("on cpu",
 *    "training") read as such;
 *  - the results ranked for the reader (rank() below): sections about what was typed first, a shared
 *    explanation expanded into several pages shown once (the copy on the reader's page, or on the page of
 *    the situation the query names, or the nearest one), the guide before the API reference unless the
 *    query names an API entry, and no title twice among the first results.
 *
 * search.js starts it as search-worker.js?material=<Material's worker>&index=<full index>&page=<the
 * reader's page>. Material's worker is loaded with importScripts; its message listener is kept and called
 * with rewritten messages, and its replies are caught on their way back. Messages follow Material's
 * protocol (SearchMessageType): 0 setup, 1 ready, 2 query, 3 result; a result also says which query it
 * answers (data.query), which Material ignores and tests/browser/test_search.py waits for, and the first
 * result after the index loaded says how long that took (data.timing, read by bench/search.py).
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

/* How much the reader's situation weighs (rank()): a section on a page of another situation than the
 * reader's page (the first dimension of the facets, training or inference, counts most), or than the one
 * the query names; a page without that facet (the overview, the API reference) sits in between. */
const MISMATCH = { mode: 0.7, hardware: 0.85 }
const MISSING = 0.9
const NAMED_MATCH = 1.5
const NAMED_MISMATCH = 0.45
const NAMED_MISSING = 0.8
const SAME_PAGE = 1.25
const API_TIER = 1e-3                  // an API entry, when the query names none, scores below zero: after
                                       // every section of the guide, in its own order
const DISTINCT = 10                    // the first results whose titles differ from each other

const params = new URL(self.location.href).searchParams
const nativeAdd = self.addEventListener.bind(self)
const nativePost = self.postMessage.bind(self)
const readerPage = params.get("page")  // the page the reader searches from (site-relative), or null

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
let loadedAt = null                    // when the index had been fetched and parsed (performance.now())
let timing = null                      // how long the steps after that took, in ms (for the first answer)
const documents = new Map()            // location -> section (location, title, text) of the full index
let ranking = emptyRanking()           // what hooks/perfdocs/search.py wrote for ranking (ranking_data)

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
      .then(async index => {
        loadedAt = performance.now()
        for (const doc of index.docs)
          documents.set(doc.location, doc)
        ranking = prepare(index.perfdocs)
        const prepared = performance.now()
        await ask({
          type: SETUP,
          data: { config: index.config, docs: index.docs, options: setup.data.options }
        })
        timing = { prepare: prepared - loadedAt, lunr: performance.now() - prepared }
      })
    loading.catch(() => { loading = null })  // the next query tries again
  }
  return loading
}

function emptyRanking() {
  return { synonyms: [], facets: {}, pages: {}, sections: {}, api: new Map(), apiPages: new Set() }
}

/* The index's ranking data, with the API entries by name: every dotted tail of an entry's path
 * ("from_pretrained", "PreTrainedModel.from_pretrained", "transformers.PreTrainedModel.from_pretrained") */
function prepare(data) {
  const ranking = { ...emptyRanking(), ...data ?? {} }
  ranking.api = new Map()
  ranking.apiPages = new Set()
  for (const [location, facts] of Object.entries(ranking.sections ?? {})) {
    if (!facts.api)
      continue
    const [page, path] = location.split("#")
    ranking.apiPages.add(page)
    const parts = path.split(".")
    for (let i = 0; i < parts.length; i++) {
      const name = parts.slice(i).join(".")
      const key = name.toLowerCase()
      if (!ranking.api.has(key))
        ranking.api.set(key, [])
      ranking.api.get(key).push({ location, name })
    }
  }
  return ranking
}

/* Whether the index holds a word (within a longer one counts too: a joined word that does not occur as a
 * word matches nothing more than its parts do). The text is put together on the first question. */
let everything = null
function inIndex(word) {
  if (everything === null) {
    const parts = []
    for (const doc of documents.values())
      parts.push(doc.title, doc.text)
    everything = parts.join(" ").toLowerCase()
  }
  return everything.includes(word)
}

/* Lowercase words, split as the index splits them */
let separator = null
function wordsOf(text) {
  separator ??= new RegExp(setup.data.config.separator)
  return text.toLowerCase().split(/\s+/)
    .flatMap(part => part.split(separator))
    .filter(word => word.length > 0)
}

function isStopWord(word) {
  return typeof lunr.stopWordFilter === "function" && lunr.stopWordFilter(word) === undefined
}

/* A word of a text stands for a word of a spelling: the same, or, past two letters, longer */
function matches(token, word) {
  return token === word || (word.length > SHORT && token.startsWith(word))
}

/* A section's title, the title of the heading it sits under, and its text, as arrays of words. The text
 * is the index's own HTML, which hooks/perfdocs/search.py writes with a few bare tags (p, code, li...) and
 * escaped text, and a worker has no HTML parser: tags become spaces and the four escapes are undone. */
const plain = new Map()
function wordsIn(location) {
  if (!plain.has(location)) {
    const doc = documents.get(location) ?? { title: "", text: "" }
    const words = html => wordsOf(html.replace(/<[^>]*>/g, " ")
      .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&"))
    const up = documents.get(ranking.sections?.[location]?.up)
    plain.set(location, { title: words(doc.title), under: up ? words(up.title) : [], text: words(doc.text) })
  }
  return plain.get(location)
}

/* What the reader typed, as concepts: a run of words that spells a synonym entry (all its spellings), a
 * run that names a facet of the reader's situation, two words that are one word in the guide ("deep
 * speed", "flash attention", "device map" for device_map), or a single word. Stop words are dropped.
 * Typed words match a spelling exactly: "fp16_full_eval" is that argument, not fp16. */
function analyze(value) {
  const words = wordsOf(value)
  const concepts = []
  const spelled = (at, spelling) => spelling.length > 0 && at + spelling.length <= words.length &&
    spelling.every((word, j) => words[at + j] === word)
  for (let i = 0; i < words.length;) {
    let best = null
    for (const [key, spellings] of ranking.synonyms)
      for (const spelling of spellings)
        if (spelled(i, spelling) && (best === null || spelling.length > best.length))
          best = { length: spelling.length, concept: { spellings, key } }
    for (const [dimension, values] of Object.entries(ranking.facets))
      for (const [value, spellings] of Object.entries(values))
        for (const spelling of spellings)
          if (spelled(i, spelling) && (best === null || spelling.length > best.length))
            best = { length: spelling.length, concept: { spellings: [spelling], facet: [dimension, value] } }
    if (best !== null) {
      concepts.push({ ...best.concept, words: words.slice(i, i + best.length) })
      i += best.length
      continue
    }
    if (!isStopWord(words[i]))
      concepts.push({ spellings: [[words[i]]], words: [words[i]] })
    i++
  }
  for (let i = 0; i + 1 < concepts.length; i++) {
    const [a, b] = [concepts[i], concepts[i + 1]]
    const single = c => c.words.length === 1 && !c.key && !c.facet && !c.pair
    const joined = single(a) && single(b)
      ? [a.words[0] + b.words[0], `${a.words[0]}_${b.words[0]}`].filter(inIndex)
      : []
    if (joined.length > 0)
      concepts.splice(i, 2, { spellings: joined.map(word => [word]), pair: [a.words[0], b.words[0]],
                              words: [...a.words, ...b.words] })
  }
  return { words, concepts, api: apiEntries(value) }
}

/* The API entries the query names: a word that is the name of a documented class ("Trainer",
 * "trainingarguments": case does not matter), or a code-like name ("from_pretrained", "Trainer.train")
 * that is an entry's name or the tail of its path. A method or attribute with a plain word for a name
 * ("train", "device", "generate") is not named by that word: the guide explains it first. */
function apiEntries(value) {
  const named = new Set()
  for (const typed of value.split(/\s+/)) {
    const word = typed.replace(/^[^\w.]+|[^\w.]+$/g, "").replace(/\(\)$/, "")
    for (const { location, name } of ranking.api.get(word.toLowerCase()) ?? [])
      if (/^[A-Z]|[_.]|[a-z0-9][A-Z]/.test(name))
        named.add(location)
  }
  return named
}

/* The query as lunr clauses: the words typed, two adjacent words joined, and the index word of every
 * synonym entry spelled (hooks/perfdocs/search.py stores it in the `keys` field of the sections that
 * spell the entry any way) */
function clauses(words, concepts) {
  const clauses = []
  const kept = words.filter(word => !isStopWord(word))
  for (const word of kept)
    clauses.push(word.length <= SHORT ? `${word}^1` : word)  // a boost (of 1) keeps Material from adding *
  for (let i = 0; i + 1 < kept.length; i++)
    clauses.push(`${kept[i] + kept[i + 1]}*^${COMPOUND_BOOST}`)
  for (const concept of concepts)
    if (concept.key && !kept.includes(concept.key))
      clauses.push(`${concept.key}^1`)
  return clauses.join(" ")
}

/* How often `spelling` occurs in `tokens`; the positions it covers are added to `covered` */
function occurrences(tokens, spelling, covered) {
  let count = 0
  for (let i = 0; i + spelling.length <= tokens.length; i++)
    if (spelling.every((word, j) => matches(tokens[i + j], word))) {
      count++
      if (covered)
        for (let j = 0; j < spelling.length; j++)
          covered.add(i + j)
    }
  return count
}

/* How often a concept occurs in `tokens`: any of its spellings; two words typed that are one word in the
 * guide, as that word or as both words */
function found(tokens, concept, covered) {
  let count = 0
  for (const spelling of concept.spellings)
    count += occurrences(tokens, spelling, covered)
  if (concept.pair) {
    const marks = new Set()
    const both = Math.min(...concept.pair.map(word => occurrences(tokens, [word], marks)))
    if (both > 0) {
      count += both
      for (const i of marks)
        covered?.add(i)
    }
  }
  return count
}

/* What a section holds of the concepts: how many are in its title, in its title or the heading above
 * it, anywhere in it, how often they occur in its text, and the share of its title's words they make up.
 * Words that name the reader's situation count only where nothing else was typed. */
function stats(location, concepts) {
  const { title, under, text } = wordsIn(location)
  const content = concepts.filter(c => !c.facet)
  const scored = content.length > 0 ? content : concepts
  const covered = new Set()
  const s = { n: scored.length, inTitle: 0, inHeading: 0, inSection: 0, mentions: 0, fit: 0 }
  s.length = text.length
  for (const concept of scored) {
    const t = found(title, concept, covered) > 0
    const u = !t && found(under, concept) > 0
    const x = found(text, concept)
    s.inTitle += t
    s.inHeading += t || u
    s.inSection += t || u || x > 0
    s.mentions += Math.min(x, 8)
  }
  for (const concept of concepts)
    if (concept.facet)
      found(title, concept, covered)
  const titleWords = title.filter(word => !isStopWord(word)).length
  s.fit = titleWords ? [...covered].filter(i => !isStopWord(title[i])).length / titleWords : 0
  return s
}

/* How well a section answers the concepts. A section that holds them all: more the more of them its title
 * holds, and the more of its title they make up ("Graph breaks" for "graph breaks", before "Worked
 * example: a 7B model in bf16" for "bf16"), then the heading above it; more the denser they are in its
 * text (a section about it, not one that mentions it once among a hundred parameters) and in the text of
 * the sections under it (the section that opens the topic). One that holds some: the share it holds. */
function lexical(s, below) {
  const density = 1 - Math.exp(-6 * s.mentions / s.n / Math.sqrt(s.length + 40))
  const topic = 1 - Math.exp(-below / s.n / 4)
  if (s.inSection < s.n)
    return 2 * (s.inSection / s.n) * (0.5 + 0.5 * density)
  return 2 + 2.5 * density + 0.75 * topic
    + (s.inTitle / s.n) * (1.5 + 4.5 * s.fit)
    + 2.5 * ((s.inHeading - s.inTitle) / s.n)
}

/* The reader's situation: each facet named in the query, else the reader's page's */
function situation(concepts) {
  const named = {}
  for (const concept of concepts)
    if (concept.facet)
      named[concept.facet[0]] = concept.facet[1]
  return { named, page: ranking.pages?.[readerPage] ?? {} }
}

/* How much a section's page fits the reader's situation (a factor), and whether it is of another
 * situation than one the query names */
function affinity(location, { named, page }) {
  const url = location.split("#")[0]
  const facets = ranking.pages?.[url] ?? {}
  let factor = 1
  let contradicts = false
  for (const dimension of Object.keys(ranking.facets)) {
    const have = facets[dimension]
    if (named[dimension] !== undefined) {
      const want = named[dimension]
      factor *= have === want ? NAMED_MATCH : have === undefined ? NAMED_MISSING : NAMED_MISMATCH
      contradicts ||= have !== undefined && have !== want
    } else if (page[dimension] !== undefined) {
      const want = page[dimension]
      factor *= have === want ? 1 : have === undefined ? MISSING : MISMATCH[dimension] ?? MISMATCH.hardware
    }
  }
  return { factor, contradicts }
}

function isApi(location) {
  return Boolean(ranking.sections?.[location]?.api) || ranking.apiPages.has(location.split("#")[0])
}

/* What a result highlights (Material puts these terms in the link's ?h=) and reports missing: each typed
 * word found as typed; a synonym found in another spelling of one word stands for it (typed "bfloat16",
 * "bf16" is highlighted); a word that names the reader's situation is never reported missing */
function terms(location, concepts) {
  const { title, under, text } = wordsIn(location)
  const result = {}
  for (const concept of concepts) {
    const present = spelling => [title, under, text].some(tokens => occurrences(tokens, spelling) > 0)
    const typed = concept.words.filter(word => !isStopWord(word))
    if (concept.pair) {
      const joined = concept.spellings.find(spelling => present(spelling))
      if (joined !== undefined)
        result[joined[0]] = true
      else
        for (const word of concept.pair)
          result[word] = present([word])
      continue
    }
    if (present(concept.words)) {
      for (const word of typed)
        result[word] = true
      continue
    }
    const other = concept.spellings.find(spelling => present(spelling))
    if (other !== undefined) {
      if (other.length === 1)
        result[other[0]] = true
      continue
    }
    if (!concept.facet)
      for (const word of typed)
        result[word] ??= false
  }
  return result
}

/* The order of the results. Each section Material found is scored by lexical() (what was typed), times
 * affinity() (the reader's situation); an API entry the query names comes first; when it names none, the
 * API entries come after every section of the guide. Of a shared explanation's copies (the same snippet
 * section expanded into several pages, or the sections that hold its introduction) one is kept: the best
 * for the reader's situation, the one on the reader's page when that ties, and it ranks where the best
 * copy would. Sections are grouped by page, as Material shows them, pages by their best section; among
 * the first results a page whose best section has the title of one above it moves below the next page
 * with another title (distinct()). Scores are set to match, so that Material's Enter-goes-to-the-best-
 * score and its fold of weaker sections under "more results" agree. */
function rank(result, analysis) {
  const { concepts, api } = analysis
  const context = situation(concepts)
  const all = result.items.flat()
  const articles = new Map(all.filter(item => !item.location.includes("#")).map(item => [item.location, item]))
  const items = all.filter(item => Object.keys(item.terms).length > 0)
  const top = Math.max(1, ...items.map(item => item.score))
  const found = new Map(items.map(item => [item.location, stats(item.location, concepts)]))
  const here = new Map()               // item -> SAME_PAGE for a copy on the reader's page, else 1
  const below = new Map()              // location -> what the sections under it mention
  for (const [location, s] of found) {
    const up = ranking.sections?.[location]?.up
    if (up !== undefined)
      below.set(up, (below.get(up) ?? 0) + s.mentions)
  }
  for (const item of items) {
    const { factor, contradicts } = affinity(item.location, context)
    let score = lexical(found.get(item.location), below.get(item.location) ?? 0) * factor
    here.set(item, item.location.split("#")[0] === readerPage && !contradicts ? SAME_PAGE : 1)
    score += 0.01 * item.score / top     // Material's score breaks ties
    if (api.has(item.location))
      score += 100                       // the entries the query names first
    else if (isApi(item.location))
      score = score * API_TIER - 1       // then the guide, then the other entries
    item.score = score
    item.terms = terms(item.location, concepts)
  }
  const copies = new Map()               // what copies share -> the copies found
  const kept = []
  for (const item of items) {
    const shared = ranking.sections?.[item.location]?.shared
    if (shared === undefined)
      kept.push(item)
    else if (copies.has(shared))
      copies.get(shared).push(item)
    else
      copies.set(shared, [item])
  }
  for (const group of copies.values()) {
    const chosen = group.reduce((a, b) => b.score * here.get(b) > a.score * here.get(a) ? b : a)
    chosen.score = Math.max(...group.map(item => item.score))
    kept.push(chosen)
  }
  kept.sort((a, b) => b.score - a.score)
  const groups = new Map()
  for (const item of kept) {
    const page = item.location.split("#")[0]
    if (!groups.has(page))
      groups.set(page, [])
    groups.get(page).push(item)
  }
  for (const [page, group] of groups)
    if (!group.some(item => item.location === page)) {
      const article = articles.get(page) ?? { ...documents.get(page), terms: {} }
      group.push({ ...article, score: 0 })  // Material shows every group under its page's title
    }
  result.items = distinct([...groups.values()])
  return result
}

/* Groups (each led by its best section) in order, no lead title twice among the first DISTINCT: a group
 * whose lead has the title of one above moves below the next group with another title */
function distinct(groups) {
  const plainTitle = group => group[0].title.replace(/<[^>]*>/g, "").trim().toLowerCase()
  const rest = [...groups]
  const order = []
  const seen = new Set()
  while (rest.length > 0) {
    let next = 0
    if (order.length < DISTINCT) {       // not past the guide, for an API entry (scores below zero)
      const tier = rest[0][0].score >= 0
      const fresh = rest.findIndex(group => !seen.has(plainTitle(group)) && group[0].score >= 0 === tier)
      next = fresh === -1 ? 0 : fresh
    }
    const [group] = rest.splice(next, 1)
    seen.add(plainTitle(group))
    order.push(group)
  }
  return order
}

/* Queries are answered one after the other, in the order typed; one that a later query has replaced
 * by the time its turn comes is skipped (the reader typed on while the index loaded) */
let queue = Promise.resolve()
let answered = false                   // the first answer after the index loaded says how long it took
function search(value) {
  latest = value
  const replaced = () => value !== latest
  queue = queue.then(async () => {
    await new Promise(resolve => setTimeout(resolve))  // let queries already sent arrive first
    if (replaced())
      return
    if (!wordsOf(value).some(word => !isStopWord(word)))
      return nativePost({ type: RESULT, data: { items: [], query: value } })
    try {
      await load()
    } catch (err) {
      console.warn(`perfdocs search: the index did not load: ${err}`)
      return nativePost({ type: RESULT, data: { items: [], query: value } })
    }
    if (replaced())
      return
    const advanced = ADVANCED.test(value)
    const analysis = advanced ? null : analyze(value)
    const query = advanced ? value : clauses(analysis.words, analysis.concepts)
    const reply = await ask({ type: QUERY, data: query })
    const data = advanced ? reply.data : rank(reply.data, analysis)
    const took = answered ? {} : { timing: { ...timing, loaded_to_answer: performance.now() - loadedAt } }
    answered = true
    nativePost({ type: RESULT, data: { ...data, query: value, ...took } })
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
