FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --omit=dev
COPY bin ./bin
COPY src ./src
COPY machines ./machines
COPY otel ./otel
ENV NODE_ENV=production MRTQ_CONTAINERS=off
ENTRYPOINT ["node", "bin/mrtq.js"]
CMD ["serve"]
