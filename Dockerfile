# skillbot in a container: Debian (bookworm) with Node 20, bubblewrap for the skill sandbox, tini as PID 1, and the
# Python packages the public document skills (pdf, docx, xlsx, pptx) import. Not built on the project's machines
# (no container engine or registry there): keep it in step with .ci/run and read docs/operations.md first.
#
# The sandbox needs user namespaces, which Docker's default seccomp profile (and AppArmor on Ubuntu hosts) refuse:
# run with `--security-opt seccomp=unconfined` (and `--security-opt apparmor=unconfined` on Ubuntu), or a seccomp
# profile that allows clone/clone3/unshare with CLONE_NEWUSER (docs/security.md). No --privileged, no capability.
#
# Two targets: the default image, and `--target documents`, the supported host for the document skills (LibreOffice
# headless, poppler, pandoc, qpdf, a current pypdf and imageio, pdf2image, and the Node packages the skills call; docs/skills.md).
FROM node:20-bookworm-slim AS app

# bubblewrap: the sandbox (as .ci/run installs it). tini: PID 1 that forwards SIGTERM and reaps orphans.
# python3 + packages under /usr, which the sandbox mounts read-only: what skill scripts may import.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      bubblewrap tini ca-certificates git \
      python3 python3-pip python3-pypdf python3-openpyxl python3-docx python3-reportlab python3-pandas poppler-utils \
 && pip3 install --no-cache-dir --break-system-packages python-pptx pdfplumber \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# Dependencies first (a layer that changes only with the lock file); `npm ci` builds dist/ through `prepare`,
# which needs the sources, so the install runs after they are copied.
COPY package.json package-lock.json ./
COPY bin ./bin
COPY src ./src
COPY adapters ./adapters
COPY skills ./skills
COPY tsconfig.json ./
# sqlite3 builds from source (allowScripts in package.json): the build tools are needed only for this step.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && npm ci --omit=dev \
 && apt-get purge -y make g++ && apt-get autoremove -y && rm -rf /var/lib/apt/lists/* /root/.npm

# A user of its own; data/ (the SQLite store, state.key, the chat log) is the one writable place: mount a volume.
RUN useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin skillbot \
 && mkdir -p /app/data && chown skillbot:skillbot /app/data
USER skillbot
VOLUME ["/app/data"]

ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 STORE_URL=sqlite:///app/data/skillbot.sqlite SKILLS_DIRS=/app/skills
EXPOSE 3000
# Docker sends SIGTERM and kills 10 s later: skillbot stops within that (docs/operations.md, "Stopping").
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "bin/skillbot.mjs", "start"]

# The documents host: what Anthropic's xlsx, pptx, docx and pdf skills run, in the places the sandbox shows
# (/usr read-only; global node_modules on NODE_PATH). The same Debian set as .ci/run and docs/skills.md. Not the
# -nogui builds: Debian 12's LibreOffice 7.4 -nogui aborts running a Basic macro headless, which xlsx's recalc.py does.
FROM app AS documents
USER root
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libreoffice-calc libreoffice-impress libreoffice-writer fonts-dejavu-core \
      poppler-utils pandoc qpdf \
      python3-openpyxl python3-docx python3-pil python3-lxml python3-defusedxml python3-numpy python3-pandas \
      python3-reportlab python3-imageio python3-requests \
 && pip3 install --no-cache-dir --break-system-packages 'pypdf>=5' 'imageio>=2.28' pdf2image \
 && npm install -g pptxgenjs docx \
 && rm -rf /var/lib/apt/lists/* /root/.npm /root/.cache
USER skillbot

# The default target stays the smaller image.
FROM app
