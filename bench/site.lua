-- wrk replays a request list of bench/siteset (requests.txt, "PATH SIZE" a
-- line), for bench/site.sh:
--
--   wrk -t1 -c32 -d5s -s bench/site.lua URL -- LIST [START [THREADS]]
--
-- Every connection of a thread takes the next path of the list, so the
-- thread walks the list in order from START (0-based, default 0), and
-- starts over at its end; with -tN (THREADS = N) thread k starts
-- k × (length / N) paths further on. The request strings are built once,
-- in init, before wrk starts its clock; init then writes "site: ready"
-- and wrk's CPU time so far to stderr, which bench/site.sh takes off wrk's
-- CPU time. A request costs an index and an addition. There is no response(): wrk parses no headers for Lua. done
-- prints the requests made and the bytes of the files they asked for:
--
--   site: made N bytes B
--
-- (requests made, counted or not: the ones in flight at the end too).

local threads = {}

function setup(thread)
   thread:set("tid", #threads)
   table.insert(threads, thread)
end

local reqs, sizes, n, pos = {}, {}, 0, 0
made, bytes = 0, 0
local verify = false

function init(args)
   local list = args[1] or error("site.lua: no request list (wrk ... -- LIST)")
   local start, nthreads = tonumber(args[2] or "0"), tonumber(args[3] or "1")
   -- wrk.format once, around a marker: each request is then two
   -- concatenations, the same bytes wrk.format(nil, path) would make.
   local head, tail = wrk.format(nil, "\0"):match("^(.-)%z(.*)$")
   for line in io.lines(list) do
      local path, size = line:match("^(%S+) (%d+)$")
      if path then
         n = n + 1
         reqs[n] = head .. path .. tail
         sizes[n] = tonumber(size)
      end
   end
   if n == 0 then error("site.lua: " .. list .. " holds no requests") end
   pos = (start + tid * math.floor(n / nthreads)) % n -- request() steps to pos + 1
   -- wrk asks thread 0's request() once before the run, to check it:
   -- that call must not take a path from the list.
   verify = tid == 0
   -- On stderr, unbuffered: bench/site.sh starts counting wrk's CPU time
   -- here, after the list is read.
   -- os.clock() is wrk's CPU time so far, all threads, reading included.
   io.stderr:write(string.format("site: ready, %d requests from %s, cpu %.3f s\n", n, list, os.clock()))
end

function request()
   if verify then
      verify = false
      return reqs[pos % n + 1]
   end
   pos = pos + 1
   if pos > n then pos = 1 end
   made = made + 1
   bytes = bytes + sizes[pos]
   return reqs[pos]
end

function done(summary, latency, requests)
   local m, b = 0, 0
   for _, t in ipairs(threads) do
      m = m + t:get("made")
      b = b + t:get("bytes")
   end
   io.write(string.format("site: made %d bytes %d\n", m, b))
end
