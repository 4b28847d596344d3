-- wrk script of the full-stack bench: prints one machine-readable summary line, and, when
-- WRK_PAGES is set ("KEYS:MISS_PERCENT"), spreads requests over /page/1 … /page/KEYS with
-- MISS_PERCENT % going to ids never requested before (cache misses).
local pages = os.getenv("WRK_PAGES")
local next_thread = 0

function setup(thread)
  thread:set("thread_id", next_thread)
  next_thread = next_thread + 1
end

if pages then
  local keys, miss = pages:match("^(%d+):(%d+)$")
  keys, miss = tonumber(keys), tonumber(miss)
  local sent = 0

  function init(args)
    math.randomseed(os.time() + 7919 * (thread_id or 0))
  end

  function request()
    sent = sent + 1
    local id
    if miss > 0 and math.random(100) <= miss then
      -- Unique per thread and per request: never cached before.
      id = 1000000 + (thread_id or 0) * 100000000 + sent
    else
      id = (sent % keys) + 1
    end
    return wrk.format(nil, "/page/" .. id)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"meanUs":%.1f,"p50Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency.mean, latency:percentile(50), latency:percentile(99), latency.max))
end
